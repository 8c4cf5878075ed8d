/**
 * The per-axis attribution of the GRID card: on each benchmark's full envelope, which grid axis
 * moves the scores and which drives the rank flips. SafetyRepro localises the axis with
 * LightGBM/SHAP surrogates (App. S); this is computed exactly on the observed grid by matched
 * one-axis swaps (`src/stats/axis-attribution.ts`; docs/ANALYSIS.md says why).
 */
import { type AxisAttribution, axisAttribution } from "../../stats/index.js";
import { num, pct, textTable } from "../text.js";
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

/** The attribution as a text table (benchmark, axis, swaps, mean and max |delta|, reversals, rate, share). */
export function attributionTable(attribution: readonly GridAttribution[]): string[] {
  if (attribution.length === 0) return [];
  return textTable(
    ["benchmark", "axis", "swaps", "mean |d|", "max |d|", "reversals", "rate", "share"],
    attribution.flatMap((a) =>
      a.rows.map((r) => [
        a.benchmark,
        r.axis,
        String(r.swaps),
        num(r.meanAbsDelta, 3),
        num(r.maxAbsDelta, 3),
        `${r.reversals}/${r.comparisons}`,
        pct(r.reversalRate),
        pct(r.reversalShare, 0),
      ]),
    ),
  );
}
