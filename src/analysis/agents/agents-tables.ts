/**
 * The agent analyses' tables, each declared once (../core/result-table.ts) and rendered by the
 * text summary and overview (agents-analysis.ts) and the report section
 * (src/report/sections/agents/agents.ts). Tables whose heading names the study's facet are built
 * for that facet.
 */
import type { Interval } from "../../stats/index.js";
import { defineTable, type Rendering, type ResultColumn, type ResultTable } from "../core/result-table.js";
import { bracket, num, pct, pp, pValue } from "../core/text.js";
import type { AgentCell, AgentSliceLevel } from "./agent-result.js";
import type { DodEstimate, Estimate, GapEstimate, PairEstimate } from "./estimates.js";
import type { GlmmCoefficient, GlmmFitReport } from "./glmm.js";

export const BUCKETS = ["correct", "wrong", "p2l", "cf", "pdf", "bug", "other"] as const;

/** The slices side by side in the report's tables. */
export const SLICE_NAMES = ["primary", "robust", "intersection"] as const;

/** A cost per correct answer or a frontier when no prices are declared. */
export const NO_PRICES = "n/a: no prices";

/**
 * An estimate and its interval: "v [lo, hi]". The terminal keeps the separating space even
 * without an interval (its table trims line ends); the report writes none.
 */
export function estimateText(
  e: { estimate: number | null; ci: Interval | null } | undefined,
  f: (v: number) => string,
  rendering: Rendering = "text",
): string {
  if (!e || e.estimate === null) return "n/a";
  if (rendering === "html") return `${f(e.estimate)}${e.ci ? ` ${bracket(e.ci, f)}` : ""}`;
  return `${f(e.estimate)} ${bracket(e.ci, f)}`;
}

const dollars = (v: number) => `$${v.toFixed(3)}`;
const thousands = (v: number) => `${(v / 1000).toFixed(1)}k`;
const seconds = (v: number) => `${v.toFixed(0)} s`;
const usd = (v: number) => (v === 0 ? "$0" : `$${v < 1 ? v.toFixed(4) : v.toFixed(2)}`);

/** A cell's realized cost per correct for the text outputs: dollars, "n/a" (no correct unit) or no prices. */
export function costPerCorrectText(c: AgentCell): string {
  if (!c.cost.priced) return NO_PRICES;
  return c.cost.realized.estimate === null ? "n/a" : usd(c.cost.realized.estimate);
}

function column<Row>(key: string, header: ResultColumn<Row>["header"], cell: ResultColumn<Row>["cell"]) {
  return { key, header, cell } satisfies ResultColumn<Row>;
}

/** Per-cell outcomes in App. E's buckets; the terminal's headings are terse, the report adds the quarantined count. */
export function outcomesTable(facet: string): ResultTable<AgentCell> {
  return defineTable<AgentCell>({
    name: "agent outcomes",
    columns: [
      column("model", "model", (c) => c.model),
      column("scaffold", facet, (c) => c.scaffold),
      column("attempts", { text: "att", html: "attempts" }, (c) => String(c.outcomes.attempts)),
      column("completion", { text: "comp", html: "completion" }, (c) => pct(c.outcomes.completionRate)),
      ...BUCKETS.map((b) => column<AgentCell>(b, b, (c) => String(c.outcomes.buckets[b]))),
      column("accOverall", { text: "acc", html: "acc. overall" }, (c) => pct(c.outcomes.accuracyOverall)),
      column("accCompleted", { text: "acc done", html: "acc. completed" }, (c) => pct(c.outcomes.accuracyCompleted)),
      // Only the report counts the quarantined zero-token rejections per cell (the summary totals them).
      { ...column("quarantined", "quarantined", (c) => String(c.outcomes.quarantined)), shownIn: ["html"] },
    ],
  });
}

/** The overview's compact outcomes: accuracy with its interval, the buckets in one column, cost per correct. */
export function overviewTable(facet: string): ResultTable<AgentCell> {
  return defineTable<AgentCell>({
    name: "agent outcomes overview",
    columns: [
      column("model", "model", (c) => c.model),
      column("scaffold", facet, (c) => c.scaffold),
      column("accuracy", "acc [95% CI]", (c) => estimateText(c.accuracy, (v) => pct(v))),
      column("accCompleted", "acc done", (c) => pct(c.outcomes.accuracyCompleted)),
      column("buckets", BUCKETS.join("/"), (c) => BUCKETS.map((b) => String(c.outcomes.buckets[b])).join("/")),
      column("costPerCorrect", "cost per correct", costPerCorrectText),
    ],
  });
}

export interface GapRow {
  slice: AgentSliceLevel;
  gap: GapEstimate;
}

/** The summary's scaffold gaps, one row per slice, level and model. */
export const GAP_TABLE = defineTable<GapRow>({
  name: "agent scaffold gaps",
  columns: [
    column("slice", "slice", (r) => r.slice.slice),
    column("level", "level", (r) => r.slice.level),
    column("model", "model", (r) => r.gap.model),
    column("gap", "gap [95% CI]", (r) => estimateText(r.gap.gap, (v) => pp(v))),
    column("max", "max", (r) => r.gap.max ?? "-"),
    column("min", "min", (r) => r.gap.min ?? "-"),
  ],
});

export interface GapBySliceRow {
  level: string;
  model: string;
  /** The model's gap in each of SLICE_NAMES (undefined: not estimated there). */
  gaps: (GapEstimate | undefined)[];
}

/** The report's scaffold gaps, the slices side by side. */
export const GAP_BY_SLICE_TABLE = defineTable<GapBySliceRow>({
  name: "agent scaffold gaps by slice",
  columns: [
    column("level", "level", (r) => r.level),
    column("model", "model", (r) => r.model),
    ...SLICE_NAMES.map((slice, i) =>
      column<GapBySliceRow>(slice, `${slice} (max, min)`, (r, rendering) => {
        const g = r.gaps[i];
        return g ? `${estimateText(g.gap, (v) => num(v, 3), rendering)} (${g.max ?? "-"}, ${g.min ?? "-"})` : "n/a";
      }),
    ),
  ],
});

export interface AccuracyRow {
  level: string;
  model: string;
  scaffold: string;
  /** The cell in each of SLICE_NAMES. */
  cells: (AgentCell | undefined)[];
}

export function accuracyTable(facet: string): ResultTable<AccuracyRow> {
  return defineTable<AccuracyRow>({
    name: "agent accuracy by slice",
    columns: [
      column("level", "level", (r) => r.level),
      column("model", "model", (r) => r.model),
      column("scaffold", facet, (r) => r.scaffold),
      ...SLICE_NAMES.map((slice, i) =>
        column<AccuracyRow>(slice, `${slice} [95% CI]`, (r, rendering) =>
          estimateText(r.cells[i]?.accuracy, (v) => num(v, 3), rendering),
        ),
      ),
    ],
  });
}

export interface PairRow {
  level: string;
  pair: PairEstimate;
  /** The pair's difference in each of SLICE_NAMES. */
  differences: (Estimate | undefined)[];
}

export const PAIRWISE_TABLE = defineTable<PairRow>({
  name: "agent pairwise scaffold contrasts",
  columns: [
    column("level", "level", (r) => r.level),
    column("model", "model", (r) => r.pair.model),
    column("pair", "pair", (r) => `${r.pair.first} − ${r.pair.second}`),
    ...SLICE_NAMES.map((slice, i) =>
      column<PairRow>(slice, `${slice} [95% CI]`, (r, rendering) =>
        estimateText(r.differences[i], (v) => pp(v), rendering),
      ),
    ),
  ],
});

export interface GlmmFitRow {
  slice: string;
  model: "baseline" | "interaction";
  fit: GlmmFitReport;
}

export const GLMM_FITS_TABLE = defineTable<GlmmFitRow>({
  name: "agent GLMM fits",
  columns: [
    column("slice", "slice", (r) => r.slice),
    column("model", "model", (r) => r.model),
    column("nObs", "n_obs", (r) => String(r.fit.nObs)),
    column("nIds", "n_ids", (r) => String(r.fit.nIds)),
    column("converged", "converged", (r) => (r.fit.error ? `no (${r.fit.error})` : r.fit.converged ? "yes" : "no")),
    column("gradient", "max |gradient|", (r) => num(r.fit.maxAbsGradient, 4)),
    column("logLik", "logLik", (r) => num(r.fit.logLik, 2)),
    column("aic", "AIC", (r) => num(r.fit.aic, 2)),
    column("bic", "BIC", (r) => num(r.fit.bic, 2)),
  ],
});

export interface GlmmLrtRow {
  slice: string;
  /** Why the slice's GLMMs were not fitted. */
  skipped?: string;
  lrt: { chi2: number; df: number; p: number } | null;
}

export const GLMM_LRT_TABLE = defineTable<GlmmLrtRow>({
  name: "agent GLMM likelihood-ratio tests",
  columns: [
    column("slice", "slice", (r) => r.slice),
    column("chi2", "χ² (interaction)", (r) =>
      r.skipped !== undefined ? `skipped: ${r.skipped}` : r.lrt ? num(r.lrt.chi2, 2) : "n/a",
    ),
    column("df", "df", (r) => (r.lrt ? String(r.lrt.df) : "")),
    column("p", "p", (r) => (r.lrt ? pValue(r.lrt.p) : "")),
  ],
});

export const GLMM_COEFFICIENTS_TABLE = defineTable<GlmmCoefficient>({
  name: "agent GLMM coefficients",
  columns: [
    column("term", "term", (c) => c.name),
    column("estimate", "β", (c) => num(c.estimate, 3)),
    column("se", "SE", (c) => num(c.se, 3)),
    column("ci", "95% CI", (c) => `(${num(c.ciLower, 3)}, ${num(c.ciUpper, 3)})`),
    column("p", "p", (c) => pValue(c.p)),
  ],
});

export interface DodRow {
  slice: string;
  level: string;
  dod: DodEstimate;
}

/**
 * The file-task difference of differences. The summary lists the H4 pair of every slice and
 * subset in one table; the report gives each subset and slice its own table, with every pair and
 * the question counts.
 */
export const DOD_TABLE = defineTable<DodRow>({
  name: "agent difference of differences",
  columns: [
    { ...column("slice", "slice", (r) => r.slice), shownIn: ["text", "markdown"] },
    { ...column("subset", "subset", (r) => r.dod.subset), shownIn: ["text", "markdown"] },
    column("level", "level", (r) => r.level),
    column("model", "model", (r) => r.dod.model),
    {
      ...column("pair", "pair", (r) => `${r.dod.treatment} − ${r.dod.control}${r.dod.h4 ? " (H4)" : ""}`),
      shownIn: ["html"],
    },
    {
      ...column("questions", "file / other questions", (r) => `${r.dod.fileQuestions} / ${r.dod.otherQuestions}`),
      shownIn: ["html"],
    },
    column("dod", "DoD [95% CI]", (r, rendering) => estimateText(r.dod.dod, (v) => num(v, 3), rendering)),
    column("reading", "reading", (r) => r.dod.reading ?? "n/a"),
  ],
});

export interface CellRow {
  level: string;
  cell: AgentCell;
}

/** The behavioural signatures of each cell (the report only). */
export function behaviourTable(facet: string): ResultTable<CellRow> {
  const estimate = (f: (v: number) => string, get: (c: AgentCell) => Estimate) => (r: CellRow, rendering: Rendering) =>
    estimateText(get(r.cell), f, rendering);
  return defineTable<CellRow>({
    name: "agent behavioural signatures",
    columns: [
      column("level", "level", (r) => r.level),
      column("model", "model", (r) => r.cell.model),
      column("scaffold", facet, (r) => r.cell.scaffold),
      column(
        "toolCalls",
        "tool calls",
        estimate(
          (v) => num(v, 1),
          (c) => c.behaviour.toolCalls,
        ),
      ),
      column(
        "outputTokens",
        "output tokens",
        estimate(thousands, (c) => c.behaviour.outputTokens),
      ),
      column(
        "workingSeconds",
        "working time (completed)",
        estimate(seconds, (c) => c.behaviour.workingSeconds),
      ),
      column("recovery", "recovery (n/N)", (r, rendering) => {
        const recovery = r.cell.behaviour.recovery;
        const value = recovery.estimate === null ? "n/a" : estimateText(recovery, (v) => num(v, 2), rendering);
        return `${value} (${recovery.recovered}/${recovery.withError})`;
      }),
      column(
        "inputTokens",
        "input",
        estimate(thousands, (c) => c.behaviour.inputTokens),
      ),
      column(
        "cacheRead",
        "cache read",
        estimate(thousands, (c) => c.behaviour.cacheReadTokens),
      ),
      column(
        "cacheWrite",
        "cache write",
        estimate(thousands, (c) => c.behaviour.cacheWriteTokens),
      ),
    ],
  });
}

/** Cost per correct of each cell, cheapest first (the report only). */
export function costTable(facet: string): ResultTable<CellRow> {
  const priced = (r: CellRow, text: string) => (r.cell.cost.priced ? text : NO_PRICES);
  return defineTable<CellRow>({
    name: "agent cost per correct",
    columns: [
      column("level", "level", (r) => r.level),
      column("model", "model", (r) => r.cell.model),
      column("scaffold", facet, (r) => r.cell.scaffold),
      column("correct", "correct", (r) => String(r.cell.outcomes.buckets.correct)),
      column("total", "total cost", (r) => priced(r, dollars(r.cell.cost.totalUsd))),
      column("realized", "realized per correct [95% CI]", (r, rendering) =>
        priced(r, estimateText(r.cell.cost.realized, dollars, rendering)),
      ),
      column("happyPath", "happy path [95% CI]", (r, rendering) =>
        priced(r, estimateText(r.cell.cost.happyPath, dollars, rendering)),
      ),
      column("frontier", "", (r) => (r.cell.onFrontier ? "frontier" : "")),
    ],
  });
}

/** The tier ladder of each slice and level that has one. */
export const LADDER_TABLE = defineTable<AgentSliceLevel>({
  name: "agent tier ladder",
  columns: [
    column("slice", "slice", (s) => s.slice),
    column("level", "level", (s) => s.level),
    column("gaps", "gap by tier (least to most capable)", (s) =>
      (s.ladder?.models ?? [])
        .map((m, i) => `${m} ${s.ladder?.gaps[i] == null ? "n/a" : num(s.ladder.gaps[i], 3)}`)
        .join(" → "),
    ),
    column("reading", "reading", (s) => s.ladder?.reading ?? "n/a"),
  ],
});
