/**
 * The GRID card (SafetyRepro App. B): for each (model, benchmark) pair, (i) the axis receipt,
 * (ii) the point score at the declared reference configuration, (iii) the score neighbourhood
 * with its configuration-resample ranges, (iv) CFR_theta at the declared thresholds, (v) tau_R
 * over the declared roster, and (vi) the scope statement: what was not varied, generated from
 * the table and the plan, never typed by hand. Written as grid-card.md and grid-card.json.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GRID_AXES, type GridPlan } from "../../contracts/analysis/grid.js";
import type { Interval } from "../../stats/index.js";
import { defineTable, renderMarkdown } from "../core/result-table.js";
import type { StudyAnalysis } from "../core/registry.js";
import { md, num, pct } from "../core/text.js";
import type { FamilyBootstrap } from "./bootstrap.js";
import type { GridCell } from "./cells.js";
import { attributionTable, attributionVerdict, type GridAttribution } from "./attribution.js";
import { type EnvelopeBenchmark, smallEnvelopeNote } from "./envelope.js";

export const GRID_CARD_JSON = "grid-card.json";
export const GRID_CARD_MD = "grid-card.md";

/** The receipt's axes, in App. B's order, and their wording. */
const RECEIPT_AXES: readonly [string, string][] = [
  ["template", "template"],
  ["decoding", "decoding"],
  ["few_shot", "few-shot"],
  ["scoring_path", "scoring"],
  ["quantization", "quantization"],
];

/** Deployment-layer axes App. B names as absent from the paper's grid. */
const DEPLOYMENT_AXES: readonly [string, string][] = [
  ["system_prompt", "system prompts"],
  ["moderation", "moderation"],
  ["routing", "routing"],
  ["api_version", "API version"],
  ["region", "region"],
];

export const NOT_RECORDED = "not recorded";

export interface RangeValue {
  point: number | null;
  range: Interval | null;
}

export interface GridCardEntry {
  model: string;
  benchmark: string;
  /** (i) axis -> resolved value at the reference configuration (weights hash last). */
  receipt: { axis: string; value: string }[];
  /** (ii) */
  pointScore: { value: number | null; configuration: string; note?: string };
  /** (iii) */
  neighbourhood: {
    envelope: string;
    configurations: number;
    min: number | null;
    mean: number | null;
    max: number | null;
    sdi: RangeValue;
    cfr: ({ theta: number } & RangeValue)[] | null;
    tauR: RangeValue;
  };
  /** (iv) null: N/A for this benchmark (no pass/fail cutoff). */
  verdictStability: { theta: number; cfr: number | null; passing: number; configurations: number }[] | null;
  /** Why CFR is N/A here (iii, iv), when it is. */
  cfrNotApplicable?: string;
  /** (v) */
  rankingStability: {
    roster: string[];
    inclusion: string;
    tauR: RangeValue;
    nullExpectation: number | null;
    totalOrderMismatch: number | null;
    rhoFlipMax: number | null;
    /** The |C| = 4 caveat (§5.1, Prop. 1(iii)) when the full envelope has four configurations. */
    note?: string;
  };
}

/** One subset (tier) of one benchmark: |C|, rho_flip^max and the orderings, with the |C| = 4 caveat. */
export interface GridCardTier {
  envelope: string;
  benchmark: string;
  configurations: number;
  rhoFlipMax: number | null;
  orderings: number | null;
  possibleOrderings: number | null;
  note?: string;
}

export interface GridCard {
  /** The envelope rules file, checked against the run's stamp (study directories). */
  rules?: { path: string; sha256: string; status: string };
  /** The declared reference configuration. */
  reference: Record<string, string>;
  thresholds: number[];
  entries: GridCardEntry[];
  /** rho_flip^max per subset (the full envelope and each declared tier) and benchmark. */
  tiers: GridCardTier[];
  /** Which axis moves the scores and which drives the flips, per benchmark (full envelope). */
  attribution: GridAttribution[];
  /** (vi) */
  scope: string[];
}

export interface CardInput {
  plan: GridPlan;
  axes: string[];
  axisLevels: Record<string, string[]>;
  reference: Record<string, string>;
  cells: readonly GridCell[];
  full: readonly EnvelopeBenchmark[];
  /** Every subset analysed: the full envelope first, then the declared tiers. */
  envelopes: readonly { name: string; benchmarks: readonly EnvelopeBenchmark[] }[];
  attribution: GridAttribution[];
  bootstrap: readonly FamilyBootstrap[];
  roster: string[];
  /** Facet -> its levels, for every facet of the table. */
  facetLevels: Record<string, string[]>;
  /** Items per benchmark. */
  items: Record<string, number>;
  /** The seed facet's levels (decoding seeds), when it is a facet. */
  seeds: string[];
  attempts: number;
  models: string[];
}

export function buildGridCard(input: CardInput): GridCard {
  const entries = input.full.flatMap((b) => b.models.map((slice) => cardEntry(input, b, slice.model)));
  return {
    reference: input.reference,
    thresholds: input.plan.thresholds,
    entries,
    tiers: cardTiers(input.envelopes),
    attribution: input.attribution,
    scope: scopeStatement(input),
  };
}

function cardTiers(envelopes: CardInput["envelopes"]): GridCardTier[] {
  return envelopes.flatMap((e) =>
    e.benchmarks.map((b) => {
      const note = smallEnvelopeNote(b.configurations);
      return {
        envelope: e.name,
        benchmark: b.benchmark,
        configurations: b.configurations,
        rhoFlipMax: b.rankFlip?.rhoFlipMax ?? null,
        orderings: b.rankFlip?.orderings.length ?? null,
        possibleOrderings: b.rankFlip?.possibleOrderings ?? null,
        ...(note ? { note } : {}),
      };
    }),
  );
}

function rangeOf(bootstrap: readonly FamilyBootstrap[], metric: string, benchmark: string, model?: string): RangeValue {
  const slice = bootstrap
    .find((f) => f.metric === metric)
    ?.slices.find((s) => s.benchmark === benchmark && s.model === model);
  return { point: slice?.point ?? null, range: slice?.range ?? null };
}

function cardEntry(input: CardInput, b: EnvelopeBenchmark, model: string): GridCardEntry {
  const slice = b.models.find((m) => m.model === model)!;
  const referenceKey = input.axes.map((a) => input.reference[a]).join(" · ");
  const cell = input.cells.find(
    (c) => c.model === model && c.benchmark === b.benchmark && c.configuration === referenceKey,
  );
  const receipt = RECEIPT_AXES.map(([axis, label]) => ({
    axis: label,
    value: input.reference[axis] ?? fixedValue(input.facetLevels[axis]) ?? NOT_RECORDED,
  }));
  receipt.push({ axis: "weights hash", value: cell?.revisions.length ? cell.revisions.join(", ") : NOT_RECORDED });
  const pointScore = !cell
    ? { value: null, configuration: referenceKey, note: "the reference configuration is not in this benchmark's grid" }
    : cell.score === null
      ? { value: null, configuration: referenceKey, note: `not interpretable: ${cell.unreadable ?? "no score"}` }
      : { value: cell.score, configuration: referenceKey };
  const tauR = rangeOf(input.bootstrap, "tau_R", b.benchmark);
  return {
    model,
    benchmark: b.benchmark,
    receipt,
    pointScore,
    neighbourhood: {
      envelope: "full",
      configurations: b.configurations,
      min: slice.dispersion.min,
      mean: slice.dispersion.mean,
      max: slice.dispersion.max,
      sdi: { point: slice.dispersion.sdi, range: rangeOf(input.bootstrap, "SDI", b.benchmark, model).range },
      cfr: slice.cfr
        ? slice.cfr.map((c) => ({
            theta: c.theta,
            point: c.cfr,
            range: rangeOf(input.bootstrap, `CFR_${c.theta}`, b.benchmark, model).range,
          }))
        : null,
      tauR: { point: b.tauR?.tauR ?? null, range: tauR.range },
    },
    verdictStability: slice.cfr
      ? slice.cfr.map((c) => ({ theta: c.theta, cfr: c.cfr, passing: c.passing, configurations: c.n }))
      : null,
    ...(b.cfrNotApplicable ? { cfrNotApplicable: b.cfrNotApplicable } : {}),
    rankingStability: {
      roster: input.roster,
      inclusion: "configurations with a readable score for every roster model",
      tauR: { point: b.tauR?.tauR ?? null, range: tauR.range },
      nullExpectation: b.tauR?.null.expectedTauR ?? null,
      totalOrderMismatch: b.tauR?.totalOrderMismatchRate ?? null,
      rhoFlipMax: b.rankFlip?.rhoFlipMax ?? null,
      ...(smallEnvelopeNote(b.configurations) ? { note: smallEnvelopeNote(b.configurations) } : {}),
    },
  };
}

function fixedValue(levels: readonly string[] | undefined): string | undefined {
  return levels && levels.length === 1 ? levels[0] : undefined;
}

/**
 * (vi) Every axis that was not varied, read from the table: the grid axes absent or fixed, the
 * other facets fixed, the roster, the item sets, the seed count, and the deployment-layer axes.
 */
export function scopeStatement(input: CardInput): string[] {
  const varied = (facet: string) => (input.facetLevels[facet]?.length ?? 0) > 1;
  const lines: string[] = [];
  const known = new Set<string>([...GRID_AXES, ...DEPLOYMENT_AXES.map(([a]) => a), input.plan.seed_facet]);
  for (const axis of GRID_AXES) {
    if (varied(axis)) continue;
    const fixed = fixedValue(input.facetLevels[axis]);
    lines.push(
      fixed !== undefined
        ? `${axis}: not varied (fixed at ${fixed})`
        : `${axis}: not varied (not a facet of this study; ${NOT_RECORDED})`,
    );
  }
  for (const [facet, levels] of Object.entries(input.facetLevels)) {
    if (known.has(facet) || levels.length !== 1) continue;
    lines.push(`${facet}: not varied (fixed at ${levels[0]})`);
  }
  lines.push(`models: only ${input.models.join(", ")} (other models, sizes and quantizations were not evaluated)`);
  const items = Object.entries(input.items).map(([b, n]) => `${b} ${n}`);
  lines.push(
    `item subsets: one fixed item set per benchmark (${items.join(", ")} items)` +
      (input.plan.subsamples.count > 0
        ? `; the subsample check redraws ${input.plan.subsamples.count} x ${pct(input.plan.subsamples.fraction, 0)} of it`
        : ""),
  );
  lines.push(
    input.seeds.length > 0
      ? `seed counts: ${input.seeds.length} decoding seed(s) per stochastic setting (${input.seeds.join(", ")}), ${input.attempts} attempt(s); other seed counts not run`
      : `seed counts: one draw per trial (no stochastic decoding seeds), ${input.attempts} attempt(s)`,
  );
  for (const [facet, label] of DEPLOYMENT_AXES) {
    if (varied(facet)) continue;
    const fixed = fixedValue(input.facetLevels[facet]);
    lines.push(`${label}: not varied (${fixed !== undefined ? `fixed at ${fixed}` : "not part of this grid"})`);
  }
  return lines;
}

// ---------------------------------------------------------------- Markdown

/** "0.512 [0.401, 0.633]": a point with its configuration-resample range, when it has one. */
export function rangeText(value: RangeValue, format: (v: number | null) => string): string {
  return `${format(value.point)}${value.range ? ` [${format(value.range[0])}, ${format(value.range[1])}]` : ""}`;
}

/** The axis receipt at the reference configuration: per entry in the card, the first entry's in the report. */
export const receiptTable = defineTable<{ axis: string; value: string }>({
  name: "axis receipt",
  markdownRule: "spaced",
  columns: [
    { key: "axis", header: "axis", cell: (r) => r.axis },
    {
      key: "value",
      header: { text: "value", html: "reference value" },
      // The report shows one receipt for every model, so the per-model weights hash points to the card.
      cell: (r, rendering) => (rendering === "html" && r.axis === "weights hash" ? "per model: see the card" : r.value),
    },
  ],
});

/** rho_flip^max per subset and benchmark, one per line: the card's list of what the terminal tabulates wide. */
export const tierListTable = defineTable<GridCardTier>({
  name: "rho_flip^max per subset",
  markdownRule: "spaced",
  columns: [
    { key: "subset", header: "subset", cell: (t) => t.envelope },
    { key: "benchmark", header: "benchmark", cell: (t) => t.benchmark },
    { key: "configurations", header: "|C|", cell: (t) => String(t.configurations) },
    { key: "rho", header: "rho_flip^max", cell: (t) => num(t.rhoFlipMax, 3) },
    {
      key: "orderings",
      header: "orderings",
      cell: (t) => (t.orderings === null ? "-" : `${t.orderings}/${t.possibleOrderings}`),
    },
    { key: "note", header: "note", cell: (t) => t.note ?? "" },
  ],
});

export function gridCardMarkdown(card: GridCard, title: string): string {
  const out: string[] = [`# GRID card: ${md(title)}`, ""];
  out.push(
    `Reference configuration: ${md(
      Object.entries(card.reference)
        .map(([a, v]) => `${a}=${v}`)
        .join(", ") || "(none)",
    )}`,
    "",
  );
  for (const e of card.entries) {
    const n = e.neighbourhood;
    out.push(`## ${md(e.model)} / ${md(e.benchmark)}`, "");
    out.push("(i) Axis receipt", "", ...renderMarkdown(receiptTable, e.receipt), "");
    out.push(
      `(ii) Point score at ${md(e.pointScore.configuration)}: ${e.pointScore.value === null ? md(e.pointScore.note ?? "-") : num(e.pointScore.value, 3)}`,
      "",
    );
    out.push(
      `(iii) Score neighbourhood over the ${n.envelope} envelope (${n.configurations} configurations): min ${num(n.min, 3)}, mean ${num(n.mean, 3)}, max ${num(n.max, 3)}; SDI ${rangeText(n.sdi, (v) => pct(v))}; tau_R ${rangeText(n.tauR, (v) => num(v, 3))}` +
        (n.cfr
          ? `; ${n.cfr.map((c) => `CFR_${c.theta} ${rangeText(c, (v) => pct(v))}`).join("; ")}`
          : `; CFR N/A${e.cfrNotApplicable ? ` (${md(e.cfrNotApplicable)})` : ""}`),
      "",
    );
    out.push(
      `(iv) Verdict stability: ${
        e.verdictStability
          ? e.verdictStability
              .map((v) => `CFR_${v.theta} = ${pct(v.cfr)} (${v.passing}/${v.configurations} pass)`)
              .join(", ")
          : `N/A (${md(e.cfrNotApplicable ?? "no pass/fail cutoff for this benchmark")})`
      }`,
      "",
    );
    const r = e.rankingStability;
    out.push(
      `(v) Ranking stability over the roster ${md(r.roster.join(", "))} (${r.inclusion}): tau_R ${rangeText(r.tauR, (v) => num(v, 3))} (null E = ${num(r.nullExpectation, 0)}), total-order mismatch ${pct(r.totalOrderMismatch)}, rho_flip^max ${num(r.rhoFlipMax, 3)}${r.note ? ` (${r.note})` : ""}`,
      "",
    );
  }
  if (card.tiers?.length) {
    out.push("## rho_flip^max per subset", "", ...renderMarkdown(tierListTable, card.tiers), "");
  }
  if (card.attribution?.length) {
    out.push(
      "## Per-axis attribution (full envelope, matched one-axis swaps)",
      "",
      "Swaps are configuration pairs that differ on one axis only; |d| is a model's score change across a swap; a",
      "reversal is a model pair whose strict order differs on the two sides; share is the axis's part of all reversals.",
      "",
      ...card.attribution.map((a) => `- ${md(attributionVerdict(a))}`),
      "",
      "```",
      ...attributionTable(card.attribution),
      "```",
      "",
    );
  }
  out.push("## (vi) Scope statement: not varied", "", ...card.scope.map((s) => `- ${md(s)}`), "");
  return out.join("\n");
}

/** The GRID card (SafetyRepro App. B) beside the scorecard, when the analysis has a grid. */
export function writeGridCard(dir: string, record: { analysis: StudyAnalysis }): string[] {
  const grid = record.analysis.grid;
  if (!grid || "skipped" in grid) return [];
  const title = record.analysis.meta.source.study ?? record.analysis.meta.source.path;
  const card = { ...grid.card, ...(grid.rules ? { rules: grid.rules } : {}) };
  const paths = [join(dir, GRID_CARD_JSON), join(dir, GRID_CARD_MD)];
  writeFileSync(paths[0], `${JSON.stringify(card, null, 2)}\n`);
  writeFileSync(paths[1], gridCardMarkdown(card, title));
  return paths;
}
