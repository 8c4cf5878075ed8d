/**
 * The agent-scaffold analyses of the GAIA scaffold comparison (sections 4.1-4.5, App. D-O), on
 * rows that carry agent columns: per-cell outcomes in App. E's buckets, the primary / robust /
 * intersection slices, question-clustered bootstrap CIs (B and the seed shared by every slice),
 * the scaffold gap with shared resamples and the H1 rule, all pairwise scaffold contrasts, the
 * GLMM likelihood-ratio test (H2), the file-task difference of differences (H4, both subset
 * definitions), behavioural signatures, realized and happy-path cost per correct with the
 * accuracy / cost Pareto frontier, and the tier ladder (RQ5).
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { monotonicity, paretoFrontier } from "../../stats/index.js";
import { type AgentDesign, type GapEstimate, pricedModels, sliceLevelEstimates } from "./estimates.js";
import { type GlmmComparison, scaffoldModelGlmm } from "./glmm.js";
import { cellOutcomes } from "./outcomes.js";
import { agentUnits, cellKey, SLICES, type SliceName, sliceUnits } from "./units.js";
import type { AgentCell, AgentSliceLevel, TierLadder } from "./agent-result.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import { renderText } from "../core/result-table.js";
import { num, pp, pValue, wrap } from "../core/text.js";
import {
  costPerCorrectText,
  DOD_TABLE,
  estimateText,
  GAP_TABLE,
  NO_PRICES,
  outcomesTable,
  overviewTable,
} from "./agents-tables.js";

export { costPerCorrectText, NO_PRICES };

export type { AgentCell, AgentSliceLevel, TierLadder };

export interface H1Decision {
  slice: SliceName;
  level: string;
  threshold: number;
  /** Some model's gap (point estimate) reaches the threshold; null when the level is absent. */
  supported: boolean | null;
  models: string[];
  /** Models whose gap CI lies wholly at or above the threshold. */
  modelsCiAbove: string[];
}

export interface AgentsResult {
  facet: string;
  scaffolds: string[];
  models: string[];
  levels: string[];
  resamples: number;
  seed: number;
  units: number;
  quarantined: number;
  slices: AgentSliceLevel[];
  h1: H1Decision[];
  glmm: ({ slice: SliceName } & (GlmmComparison | Skipped))[];
  h4: { treatment: string; control: string };
  /** Models without prices (every unit costs 0 or nothing): no cost per correct, off the frontier. */
  unpriced: string[];
  notes: string[];
}

/**
 * Why the card's two accuracies differ, in one line: `acc` is the paper's primary reading, the
 * other leaves errored attempts out (as the rate matrix's ITT rate does).
 */
export const ACCURACY_DEFINITIONS =
  "acc = correct / attempts (an errored attempt counts as wrong, the primary slice); acc done = correct / completed " +
  "attempts (errored ones left out, as the rate matrix does): they differ by the errored attempts";

declare module "../core/registry.js" {
  interface AnalysisResults {
    agents: AgentsResult | Skipped;
  }
}

const distinct = (values: readonly string[]) => [...new Set(values)];
export const cellLabel = (model: string, scaffold: string) => `${model} · ${scaffold}`;

function sortLevels(levels: string[]): string[] {
  return levels.sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
}

export function agentsAnalysis(ctx: AnalysisContext): AgentsResult | Skipped {
  const plan = ctx.plan.agents;
  const facet = ctx.resolved.comparisonFacet;
  const { units, quarantined } = agentUnits(ctx.rows, facet, ctx.items ?? ctx.table.items, plan);
  if (units.length === 0) return { skipped: "no rows carry agent columns (tool_calls, agent_flags, ...)" };
  const declared = ctx.table.facetLevels[facet] ?? [];
  const present = distinct(units.map((u) => u.scaffold));
  const scaffolds = [...declared.filter((l) => present.includes(l)), ...present.filter((l) => !declared.includes(l))];
  const models = distinct(units.map((u) => u.model)).sort();
  const levels = sortLevels(distinct(units.map((u) => u.level)));
  const h4 = {
    treatment: plan.dod.treatment ?? scaffolds[scaffolds.length - 1],
    control: plan.dod.control ?? scaffolds[0],
  };
  const notes: string[] = [];
  if (!units.some((u) => u.document !== null))
    notes.push("no item attachment metadata: the H4 difference of differences is not computed");

  const slices: AgentSliceLevel[] = [];
  const glmm: AgentsResult["glmm"] = [];
  for (const slice of SLICES) {
    const inSlice = sliceUnits(units, slice, plan);
    for (const level of levels) {
      const atLevel = inSlice.filter((u) => u.level === level);
      if (atLevel.length === 0) continue;
      slices.push(sliceLevel(slice, level, atLevel, { models, scaffolds, quarantined, plan, h4 }));
    }
    glmm.push({
      slice,
      ...scaffoldModelGlmm(inSlice, {
        scaffold:
          plan.reference_scaffold ??
          (scaffolds.includes(ctx.resolved.reference) ? ctx.resolved.reference : scaffolds[0]),
        model: plan.reference_model,
      }),
    });
  }
  const h1Level = levels.includes(plan.h1_level) ? plan.h1_level : levels.length === 1 ? levels[0] : plan.h1_level;
  const h1 = SLICES.map((slice) => h1Decision(slices, slice, h1Level, plan.gap_threshold));
  const priced = pricedModels(units);
  const unpriced = models.filter((m) => !priced.has(m));
  if (unpriced.length)
    notes.push(
      `${unpriced.join(", ")}: no prices (every unit costs $0): cost per correct and the Pareto frontier read "${NO_PRICES}"; ` +
        "declare a model's price (models[].price) to compute them",
    );
  return {
    facet,
    scaffolds,
    models,
    levels,
    resamples: plan.resamples,
    seed: plan.seed,
    units: units.length,
    quarantined: [...quarantined.values()].reduce((a, b) => a + b, 0),
    slices,
    h1,
    glmm,
    h4,
    unpriced,
    notes,
  };
}

/** A slice's Pareto frontier for the text outputs. */
export function frontierText(s: AgentSliceLevel): string {
  if (s.cells.every((c) => !c.cost.priced)) return NO_PRICES;
  return s.frontier.join("; ") || "none";
}

/** One slice at one level of the study's design (`quarantined`: each cell's quarantined units). */
function sliceLevel(
  slice: SliceName,
  level: string,
  units: ReturnType<typeof sliceUnits>,
  design: AgentDesign & { quarantined: Map<string, number> },
): AgentSliceLevel {
  const { models, scaffolds, quarantined, plan } = design;
  const estimates = sliceLevelEstimates(units, design);
  const cells: AgentCell[] = [];
  for (const model of models)
    for (const scaffold of scaffolds) {
      const est = estimates.cells.get(`${model}\u0001${scaffold}`);
      if (!est) continue;
      const inCell = units.filter((u) => u.model === model && u.scaffold === scaffold);
      const q = slice === "primary" ? (quarantined.get(cellKey(model, scaffold, level)) ?? 0) : 0;
      cells.push({ model, scaffold, outcomes: cellOutcomes(inCell, q), ...est, onFrontier: false });
    }
  const frontier = paretoFrontier(
    cells.map((c) => ({
      benefit: c.outcomes.accuracyOverall ?? Number.NaN,
      cost: c.cost.realized.estimate ?? Number.NaN,
    })),
  );
  for (const i of frontier) cells[i].onFrontier = true;
  return {
    slice,
    level,
    questions: new Set(units.map((u) => u.cluster)).size,
    cells,
    gaps: estimates.gaps,
    pairwise: estimates.pairwise,
    dod: estimates.dod,
    frontier: frontier.map((i) => cellLabel(cells[i].model, cells[i].scaffold)),
    ladder: tierLadder(estimates.gaps, plan.tiers),
  };
}

function tierLadder(gaps: GapEstimate[], tiers: readonly string[]): TierLadder | null {
  const models = tiers.filter((m) => gaps.some((g) => g.model === m));
  if (models.length < 2) return null;
  const values = models.map((m) => gaps.find((g) => g.model === m)?.gap.estimate ?? null);
  return {
    models,
    gaps: values,
    reading: values.every((v) => v !== null) ? monotonicity(values as number[]) : null,
  };
}

function h1Decision(slices: AgentSliceLevel[], slice: SliceName, level: string, threshold: number): H1Decision {
  const at = slices.find((s) => s.slice === slice && s.level === level);
  if (!at) return { slice, level, threshold, supported: null, models: [], modelsCiAbove: [] };
  // A tolerance so that a gap of exactly the threshold (e.g. 0.1 from 0.3 - 0.2) counts.
  const reaches = (v: number | null | undefined) => v !== null && v !== undefined && v >= threshold - 1e-12;
  const models = at.gaps.filter((g) => reaches(g.gap.estimate)).map((g) => g.model);
  return {
    slice,
    level,
    threshold,
    supported: models.length > 0,
    models,
    modelsCiAbove: at.gaps.filter((g) => reaches(g.gap.ci?.[0])).map((g) => g.model),
  };
}

// ---------------------------------------------------------------- text summary

function summaryLines(analysis: StudyAnalysis): string[] {
  const a = analysis.agents;
  // A study without agent rows says nothing about agents.
  if (!a || "skipped" in a) return [];
  const lines = [
    `agent analyses: ${a.units} attempt-units, ${a.quarantined} zero-token rejection(s) quarantined; ${a.resamples} question-clustered resamples, seed ${a.seed}`,
  ];
  const primary = a.slices.filter((s) => s.slice === "primary");
  for (const s of primary) {
    lines.push(`outcomes, level ${s.level} (primary slice)`);
    lines.push(...renderText(outcomesTable(a.facet), s.cells));
  }
  lines.push(...wrap(ACCURACY_DEFINITIONS, 120, "  "));
  lines.push("scaffold gap (max - min accuracy, shared resamples)");
  lines.push(
    ...renderText(
      GAP_TABLE,
      a.slices.flatMap((slice) => slice.gaps.map((gap) => ({ slice, gap }))),
    ),
  );
  for (const h of a.h1)
    lines.push(
      `H1 (${h.slice}, level ${h.level}, gap >= ${Math.round(100 * h.threshold)} pp): ${
        h.supported === null
          ? "not evaluable (level absent)"
          : h.supported
            ? `supported by ${h.models.join(", ")}`
            : "not supported"
      }${h.modelsCiAbove.length ? `; CI wholly above for ${h.modelsCiAbove.join(", ")}` : ""}`,
    );
  for (const g of a.glmm) {
    if ("skipped" in g) lines.push(`GLMM (${g.slice}): skipped (${g.skipped})`);
    else
      lines.push(
        `GLMM (${g.slice}): LRT scaffold x model ${
          g.lrt ? `chi2(${g.lrt.df}) = ${num(g.lrt.chi2)}, p ${pValue(g.lrt.p)}` : "not computed"
        }; full model converged ${g.full.converged ? "yes" : "no"}, max |gradient| ${num(g.full.maxAbsGradient, 4)}`,
      );
  }
  const h4 = a.slices.flatMap((s) => s.dod.filter((d) => d.h4).map((d) => ({ s, d })));
  if (h4.length > 0) {
    lines.push(`H4 difference of differences (${a.h4.treatment} - ${a.h4.control}, file tasks minus the rest)`);
    lines.push(
      ...renderText(
        DOD_TABLE,
        h4.map(({ s, d }) => ({ slice: s.slice, level: s.level, dod: d })),
      ),
    );
  }
  for (const s of primary)
    lines.push(
      ...wrap(
        `Pareto frontier, level ${s.level} (primary; accuracy vs realized cost per correct): ${frontierText(s)}`,
        120,
        "  ",
      ),
    );
  for (const n of a.notes) lines.push(...wrap(`note: ${n}`, 120, "  "));
  lines.push("");
  return lines;
}

/** The agent comparison card in a few lines: the primary slice's outcome buckets, accuracy and cost per correct, its gaps and H1. */
function overviewLines(analysis: StudyAnalysis): string[] {
  const a = analysis.agents;
  if (!a || "skipped" in a) return [];
  const lines = [
    `${a.units} attempt-units over ${a.scaffolds.length} ${a.facet}s x ${a.models.length} models; slices ${[
      ...new Set(a.slices.map((s) => s.slice)),
    ].join(", ")} (primary shown)`,
  ];
  const primary = a.slices.filter((x) => x.slice === "primary");
  for (const s of primary) {
    lines.push(...renderText(overviewTable(a.facet), s.cells));
    // The two accuracies are defined once, under the first level's table.
    if (s === primary[0]) lines.push(...wrap(ACCURACY_DEFINITIONS, 120, "  "));
    lines.push(
      ...wrap(
        `Pareto frontier, level ${s.level} (accuracy vs realized cost per correct): ${frontierText(s)}`,
        120,
        "  ",
      ),
    );
    lines.push(
      `scaffold gap (max - min accuracy), level ${s.level}:`,
      ...s.gaps.map((g) => `  ${g.model}: ${estimateText(g.gap, (v) => pp(v))} (${g.max ?? "-"} - ${g.min ?? "-"})`),
    );
  }
  for (const h of a.h1.filter((x) => x.slice === "primary"))
    lines.push(
      `H1 (level ${h.level}, gap >= ${Math.round(100 * h.threshold)} pp): ${
        h.supported === null ? "not evaluable" : h.supported ? `supported by ${h.models.join(", ")}` : "not supported"
      }`,
    );
  return lines;
}

registerAnalysis({
  name: "agents",
  kinds: ["agents"],
  plan: AnalysisPlanSchema.pick({ agents: true }),
  result: "agents",
  run: agentsAnalysis,
  summary: ({ analysis }) => summaryLines(analysis),
  overview: ({ analysis }) => overviewLines(analysis),
});
