/**
 * One benchmark's configuration envelope C_b and the metrics of SafetyRepro §4-5.1 on it: per
 * model SDI with min/mean/max and CFR_theta (and at the cell median), per benchmark tau_R with its
 * null and rho_flip per model pair. C_b holds the configurations every roster model has a
 * readable cell under (the paper's "configurations evaluated on all three models"); the others
 * are listed as dropped, with the reason.
 */
import type { GridPlan } from "../../contracts/analysis/grid.js";
import {
  type ComplianceFlipRate,
  complianceFlipRateAtMedian,
  complianceFlipRates,
  type ModelScoreGrid,
  type RankConcordance,
  type RankFlipSummary,
  rankConcordance,
  rankFlipSummary,
  type ScoreDispersion,
  scoreDispersion,
} from "../../stats/index.js";
import type { GridCell } from "./cells.js";

export interface BenchmarkGrid extends ModelScoreGrid {
  benchmark: string;
  configurations: string[];
  /** Axis levels of each configuration. */
  levels: Record<string, string>[];
  /** parseRates[c][m], aligned with scores. */
  parseRates: number[][];
  /** Configurations left out of C_b and why. */
  dropped: { configuration: string; reason: string }[];
}

/** A named subset of the grid: a predicate on a configuration's axis levels. */
export type ConfigurationFilter = (levels: Record<string, string>) => boolean;

/** C_b of one benchmark for the roster, restricted by `keep`. */
export function benchmarkGrid(
  cells: readonly GridCell[],
  benchmark: string,
  roster: readonly string[],
  keep: ConfigurationFilter = () => true,
): BenchmarkGrid {
  const byConfiguration = new Map<string, Map<string, GridCell>>();
  for (const cell of cells) {
    if (cell.benchmark !== benchmark || !roster.includes(cell.model) || !keep(cell.levels)) continue;
    const models = byConfiguration.get(cell.configuration) ?? new Map<string, GridCell>();
    models.set(cell.model, cell);
    byConfiguration.set(cell.configuration, models);
  }
  const grid: BenchmarkGrid = {
    benchmark,
    models: [...roster],
    configurations: [],
    levels: [],
    scores: [],
    parseRates: [],
    dropped: [],
  };
  for (const [configuration, models] of byConfiguration) {
    const missing = roster.filter((m) => !models.has(m));
    const unreadable = roster.flatMap((m) => {
      const cell = models.get(m);
      return cell && cell.score === null ? [`${m}: ${cell.unreadable ?? "no score"}`] : [];
    });
    if (missing.length || unreadable.length) {
      const reason = [...(missing.length ? [`not run on ${missing.join(", ")}`] : []), ...unreadable].join("; ");
      grid.dropped.push({ configuration, reason });
      continue;
    }
    const row = roster.map((m) => models.get(m)!);
    grid.configurations.push(configuration);
    grid.levels.push(row[0].levels);
    (grid.scores as number[][]).push(row.map((c) => c.score!));
    grid.parseRates.push(row.map((c) => c.parseRate));
  }
  return grid;
}

/** The grid restricted to the configurations at `indices`. */
export function selectBenchmarkGrid(grid: BenchmarkGrid, indices: readonly number[]): BenchmarkGrid {
  return {
    ...grid,
    configurations: indices.map((c) => grid.configurations[c]),
    levels: indices.map((c) => grid.levels[c]),
    scores: indices.map((c) => grid.scores[c]),
    parseRates: indices.map((c) => grid.parseRates[c]),
  };
}

export interface ModelSlice {
  model: string;
  dispersion: ScoreDispersion;
  /** CFR at each declared threshold; null = N/A (no pass/fail cutoff for this benchmark, App. L). */
  cfr: ComplianceFlipRate[] | null;
  /** CFR at the slice's median (App. L's ceiling panel); null = N/A. */
  cfrAtMedian: ComplianceFlipRate | null;
}

export interface EnvelopeBenchmark {
  benchmark: string;
  configurations: number;
  /** Why no metric was computed (fewer than one configuration, or fewer than two models). */
  skipped?: string;
  dropped: { configuration: string; reason: string }[];
  models: ModelSlice[];
  tauR: RankConcordance | null;
  rankFlip: RankFlipSummary | null;
  /** Why CFR is N/A on this benchmark (its models' `cfr` are null), when it is. */
  cfrNotApplicable?: string;
}

/** Benchmark id -> why no pass/fail threshold applies (the loaders' reasons; default: none). */
export type CfrReasons = Readonly<Record<string, string>>;

/**
 * Why CFR is undefined for a benchmark, or undefined when it is defined: its loader says no
 * pass/fail threshold applies to its score (CrowS-Pairs, App. L), or the plan lists it.
 */
export function cfrNotApplicable(plan: GridPlan, benchmark: string, reasons: CfrReasons = {}): string | undefined {
  if (reasons[benchmark]) return reasons[benchmark];
  return plan.cfr_not_applicable.includes(benchmark)
    ? "listed in analysis.grid.cfr_not_applicable (no pass/fail cutoff)"
    : undefined;
}

/** Whether CFR is defined for a benchmark (the paper marks CrowS-Pairs N/A). */
export function cfrApplies(plan: GridPlan, benchmark: string, reasons: CfrReasons = {}): boolean {
  return cfrNotApplicable(plan, benchmark, reasons) === undefined;
}

/** SDI, CFR, tau_R and rho_flip of one benchmark's envelope. */
export function envelopeMetrics(grid: BenchmarkGrid, plan: GridPlan, reasons: CfrReasons = {}): EnvelopeBenchmark {
  const notApplicable = cfrNotApplicable(plan, grid.benchmark, reasons);
  const base = {
    benchmark: grid.benchmark,
    configurations: grid.configurations.length,
    dropped: grid.dropped,
    ...(notApplicable ? { cfrNotApplicable: notApplicable } : {}),
  };
  if (grid.configurations.length === 0) {
    return {
      ...base,
      skipped: "no configuration with a readable score for every model",
      models: [],
      tauR: null,
      rankFlip: null,
    };
  }
  const applies = notApplicable === undefined;
  const models = grid.models.map((model, m): ModelSlice => {
    const scores = grid.scores.map((row) => row[m]);
    return {
      model,
      dispersion: scoreDispersion(scores),
      cfr: applies ? complianceFlipRates(scores, plan.thresholds) : null,
      cfrAtMedian: applies ? complianceFlipRateAtMedian(scores) : null,
    };
  });
  const ranked = grid.models.length >= 2;
  return {
    ...base,
    models,
    tauR: ranked ? rankConcordance(grid) : null,
    rankFlip: ranked ? rankFlipSummary(grid) : null,
  };
}

/**
 * The caveat of a subset with four configurations (SafetyRepro §5.1, Prop. 1(iii)): rho_flip is at
 * most floor(|C|/2)/|C| = 0.5 there and any 2:2 split reaches it, so rho^max = 0.5 on it shows that
 * a strict reversal exists, not how large the envelope-driven reversal is. Undefined for other sizes.
 */
export function smallEnvelopeNote(configurations: number): string | undefined {
  return configurations === 4
    ? "|C| = 4 caps rho^max at 0.5, reached by any 2:2 split (§5.1, Prop. 1(iii)): 0.5 shows a reversal, not its size"
    : undefined;
}

/** A level matches a declared value by its exact label or its short name (label before "("). */
export function levelMatches(level: string, declared: readonly string[]): boolean {
  return declared.some((d) => d === level || level.split("(")[0] === d);
}

/** The predicate of a declared envelope (include these values, then exclude those). */
export function envelopeFilter(envelope: {
  include?: Record<string, string[]>;
  exclude?: Record<string, string[]>;
}): ConfigurationFilter {
  const include = Object.entries(envelope.include ?? {});
  const exclude = Object.entries(envelope.exclude ?? {});
  return (levels) =>
    include.every(([axis, values]) => levels[axis] === undefined || levelMatches(levels[axis], values)) &&
    !exclude.some(([axis, values]) => levels[axis] !== undefined && levelMatches(levels[axis], values));
}

/** Declared envelope values that match no level of their axis (a typo would silently keep everything). */
export function unmatchedEnvelopeValues(
  envelope: { include?: Record<string, string[]>; exclude?: Record<string, string[]> },
  axisLevels: Record<string, string[]>,
): string[] {
  const out: string[] = [];
  for (const part of [envelope.include ?? {}, envelope.exclude ?? {}]) {
    for (const [axis, values] of Object.entries(part)) {
      const levels = axisLevels[axis];
      if (!levels) {
        out.push(`${axis} (not an axis of this grid)`);
        continue;
      }
      for (const v of values) if (!levels.some((l) => levelMatches(l, [v]))) out.push(`${axis}=${v}`);
    }
  }
  return out;
}
