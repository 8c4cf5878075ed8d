/**
 * The per-axis attribution of the GRID card: on each benchmark's full envelope, which grid axis
 * moves the scores and which drives the rank flips. SafetyRepro localises the axis with
 * LightGBM/SHAP surrogates (App. S); this is computed exactly on the observed grid by matched
 * one-axis swaps (`src/stats/axis-attribution.ts`; docs/ANALYSIS.md says why).
 */
import { type AxisAttribution, type AxisAttributionRow, axisAttribution } from "../../stats/index.js";
import { defineTable, renderText } from "../core/result-table.js";
import { num, pct } from "../core/text.js";
import type { BenchmarkGrid } from "./envelope.js";

export interface GridAttribution extends AxisAttribution {
  benchmark: string;
  configurations: number;
  models: number;
}

/** Each benchmark's attribution over the axes that vary on its envelope (two configurations or more). */
export function gridAttribution(grids: readonly BenchmarkGrid[], axes: readonly string[]): GridAttribution[] {
  return grids.flatMap((g) => {
    if (g.configurations.length < 2) return [];
    const varying = axes.filter((a) => new Set(g.levels.map((l) => l[a])).size > 1);
    if (varying.length === 0) return [];
    return [
      {
        benchmark: g.benchmark,
        configurations: g.configurations.length,
        models: g.models.length,
        ...axisAttribution(varying, g.levels, g.scores),
      },
    ];
  });
}

/**
 * One line per benchmark: the axis that moves scores (largest mean |change| across its swaps) and
 * the one that drives the flips (highest reversal rate per swap, so an axis with more levels, and
 * so more swaps, is not favoured for its count alone).
 */
export function attributionVerdict(a: GridAttribution): string {
  const score = a.rows.find((r) => r.axis === a.scoreAxis);
  const flip = a.rows.find((r) => r.axis === a.flipAxis);
  const moves = score ? `${score.axis} (mean |delta| ${num(100 * (score.meanAbsDelta ?? Number.NaN), 1)} pp)` : "none";
  const drives = flip
    ? `${flip.axis} (highest reversal rate: ${pct(flip.reversalRate)} = ${flip.reversals}/${flip.comparisons} swap x pair ` +
      `comparisons; ${pct(flip.reversalShare, 0)} of all reversals)`
    : a.models < 2
      ? "n/a (one model)"
      : "none (no one-axis swap reverses a model pair)";
  return `${a.benchmark}: moves scores: ${moves}; drives flips: ${drives}`;
}

/** The verdict in one terminal line: each axis with its mean |change| and its reversal rate and share. */
export function attributionLine(a: GridAttribution): string {
  const score = a.rows.find((r) => r.axis === a.scoreAxis);
  const flip = a.rows.find((r) => r.axis === a.flipAxis);
  const moves = score ? `${score.axis} (${num(100 * (score.meanAbsDelta ?? Number.NaN), 1)} pp)` : "none";
  const drives = flip
    ? `${flip.axis} (${pct(flip.reversalRate)} reversed, ${pct(flip.reversalShare, 0)} of reversals)`
    : a.models < 2
      ? "n/a (one model)"
      : "none";
  return `${a.benchmark}: moves scores: ${moves}; drives flips: ${drives}`;
}

/** One axis of one benchmark in the attribution table. */
export interface AttributionTableRow {
  attribution: GridAttribution;
  axis: AxisAttributionRow;
}

export function attributionRows(attribution: readonly GridAttribution[]): AttributionTableRow[] {
  return attribution.flatMap((a) => a.rows.map((axis) => ({ attribution: a, axis })));
}

/**
 * Per benchmark and axis: swaps, mean and max |score change|, reversals with their rate and share.
 * The card shows the terminal's text in a code block; the report spells its headings out.
 */
export const axisAttributionTable = defineTable<AttributionTableRow>({
  name: "per-axis attribution",
  columns: [
    { key: "benchmark", header: "benchmark", cell: (r) => r.attribution.benchmark },
    { key: "axis", header: "axis", cell: (r) => r.axis.axis },
    { key: "swaps", header: "swaps", cell: (r) => String(r.axis.swaps) },
    { key: "mean", header: { text: "mean |d|", html: "mean |Δ|" }, cell: (r) => num(r.axis.meanAbsDelta, 3) },
    { key: "max", header: { text: "max |d|", html: "max |Δ|" }, cell: (r) => num(r.axis.maxAbsDelta, 3) },
    { key: "reversals", header: "reversals", cell: (r) => `${r.axis.reversals}/${r.axis.comparisons}` },
    { key: "rate", header: { text: "rate", html: "reversal rate" }, unit: "%", cell: (r) => pct(r.axis.reversalRate) },
    {
      key: "share",
      header: { text: "share", html: "share of reversals" },
      unit: "%",
      cell: (r) => pct(r.axis.reversalShare, 0),
    },
  ],
});

/** The attribution as a text table (nothing without an attribution). */
export function attributionTable(attribution: readonly GridAttribution[]): string[] {
  return attribution.length === 0 ? [] : renderText(axisAttributionTable, attributionRows(attribution));
}
