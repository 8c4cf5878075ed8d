/**
 * The checks SafetyRepro runs around its headline (§5.1-5.2, App. D, F, H, O, V, X): rho_flip
 * restricted by scoring path, on the parse-clean subset and on stratified item subsamples; the
 * variance attribution of the free-form slice (Type II, and Type III as the robustness check);
 * and the paired effects of switching only the scoring path or only the quantization.
 */
import {
  type AbsoluteGapSummary,
  absoluteGapSummary,
  type OrderingAgreement,
  orderingAgreement,
  parseCleanConfigurations,
  quantiles,
  RandomStream,
  rankConcordance,
  rankFlipSummary,
  type Table,
  type VarianceAttribution,
  varianceAttribution,
  inducedOrdering,
} from "../../stats/index.js";
import { attempt } from "../core/data.js";
import type { GridCell } from "./cells.js";
import { type BenchmarkGrid, levelMatches, selectBenchmarkGrid } from "./envelope.js";

export const SCORING_AXIS = "scoring_path";

export interface FlipSlice {
  slice: string;
  configurations: number;
  rhoFlipMax: number | null;
  orderings: number | null;
  possibleOrderings: number | null;
  tauR: number | null;
}

/** rho_flip^max, reachable orderings and tau_R on a subset of C_b. */
export function flipSlice(grid: BenchmarkGrid, slice: string, indices: readonly number[]): FlipSlice {
  if (indices.length === 0 || grid.models.length < 2) {
    return {
      slice,
      configurations: indices.length,
      rhoFlipMax: null,
      orderings: null,
      possibleOrderings: null,
      tauR: null,
    };
  }
  const sub = selectBenchmarkGrid(grid, indices);
  const flips = rankFlipSummary(sub);
  return {
    slice,
    configurations: indices.length,
    rhoFlipMax: flips.rhoFlipMax,
    orderings: flips.orderings.length,
    possibleOrderings: flips.possibleOrderings,
    tauR: rankConcordance(sub).tauR,
  };
}

/** Table 3: free-form only, log-prob only, and the mixed envelope (when scoring_path is an axis). */
export function scoringPathStrata(grid: BenchmarkGrid): FlipSlice[] {
  const all = grid.levels.map((_, c) => c);
  if (!grid.levels.some((l) => l[SCORING_AXIS] !== undefined)) return [];
  const only = (path: string) => all.filter((c) => levelMatches(grid.levels[c][SCORING_AXIS], [path]));
  return [
    flipSlice(grid, "free_form", only("free_form")),
    flipSlice(grid, "logprob", only("logprob")),
    flipSlice(grid, "mixed", all),
  ];
}

/** App. D: the configurations where every model's parse rate is >= the threshold. */
export function parseCleanSlice(grid: BenchmarkGrid, minimum: number): FlipSlice & { excluded: string[] } {
  const clean = grid.configurations.length ? parseCleanConfigurations(grid.parseRates, minimum) : [];
  const excluded = grid.configurations.filter((_, c) => !clean.includes(c));
  return { ...flipSlice(grid, `parse rate >= ${minimum}`, clean), excluded };
}

// ---------------------------------------------------------------- item subsamples

/**
 * Stratified item subsamples (App. X): per benchmark (the stratum), a seeded draw of
 * round(fraction x items) items without replacement; subsample k uses seed + k.
 */
export function itemSubsamples(
  itemsByBenchmark: Map<string, string[]>,
  count: number,
  fraction: number,
  seed: number,
): Set<string>[] {
  return Array.from({ length: count }, (_, k) => {
    const stream = RandomStream.fromSeed(seed + k);
    const kept = new Set<string>();
    for (const [benchmark, items] of [...itemsByBenchmark].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const order = [...items].sort();
      // Fisher-Yates on a sorted copy, so the draw does not depend on row order.
      for (let i = order.length - 1; i > 0; i--) {
        const j = stream.integer(i + 1);
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (const item of order.slice(0, Math.round(fraction * order.length))) kept.add(`${benchmark}\u0000${item}`);
    }
    return kept;
  });
}

export interface SubsampleCheck {
  benchmark: string;
  subsamples: number;
  /** rho_flip^max and orderings reached on each subsample's C_b. */
  perSubsample: FlipSlice[];
  /** Per (model, configuration) cell: max - min of its score across subsamples (App. X's pp range). */
  cellRange: { cells: number; median: number; mean: number; max: number } | null;
  /** Configurations whose induced ordering is not the same on every subsample. */
  orderingChanges: number;
}

/** App. X over each benchmark: how much the cells and orderings move across item subsamples. */
export function subsampleCheck(benchmark: string, grids: readonly BenchmarkGrid[]): SubsampleCheck {
  const perSubsample = grids.map((g, k) =>
    flipSlice(
      g,
      `subsample ${k + 1}`,
      g.configurations.map((_, c) => c),
    ),
  );
  const ranges: number[] = [];
  let orderingChanges = 0;
  const [first] = grids;
  for (const configuration of first?.configurations ?? []) {
    const rows = grids.map((g) => g.scores[g.configurations.indexOf(configuration)]);
    if (rows.some((r) => r === undefined)) continue;
    first.models.forEach((_, m) => {
      const values = rows.map((r) => r[m]);
      ranges.push(Math.max(...values) - Math.min(...values));
    });
    const orders = new Set(rows.map((r) => inducedOrdering(first.models, r).join("\u0000")));
    if (orders.size > 1) orderingChanges++;
  }
  return {
    benchmark,
    subsamples: grids.length,
    perSubsample,
    cellRange: ranges.length
      ? {
          cells: ranges.length,
          median: quantiles(ranges, [0.5])[0],
          mean: ranges.reduce((a, b) => a + b, 0) / ranges.length,
          max: Math.max(...ranges),
        }
      : null,
    orderingChanges,
  };
}

// ---------------------------------------------------------------- variance attribution

export interface GridVariance {
  benchmark: string;
  cells: number;
  implementation: string[];
  typeII: VarianceAttribution | { error: string };
  typeIII: VarianceAttribution | { error: string };
}

/** The implementation axes that vary on a slice, in the paper's order (template first). */
export function implementationAxes(grid: BenchmarkGrid, axes: readonly string[]): string[] {
  return axes.filter((a) => a !== SCORING_AXIS && new Set(grid.levels.map((l) => l[a])).size > 1);
}

/** App. F's table: one row per (model, configuration) cell of the slice. */
export function attributionTable(
  grid: BenchmarkGrid,
  implementation: readonly string[],
): { table: Table; configuration: string[] } {
  const score: number[] = [];
  const model: string[] = [];
  const configuration: string[] = [];
  const columns: Record<string, string[]> = Object.fromEntries(implementation.map((a) => [a, []]));
  grid.scores.forEach((row, c) => {
    row.forEach((s, m) => {
      score.push(s);
      model.push(grid.models[m]);
      configuration.push(grid.configurations[c]);
      for (const a of implementation) columns[a].push(grid.levels[c][a]);
    });
  });
  return { table: { score: Float64Array.from(score), model, ...columns }, configuration };
}

/**
 * App. F's two-way interactions for the axes present: model x each axis, and the first axis
 * (template) x each other one; with template, decoding, few_shot this is the paper's formula.
 */
export function gridInteractions(implementation: readonly string[]): string[] {
  const [first, ...rest] = implementation;
  return [...implementation.map((a) => `model:${a}`), ...rest.map((a) => `${first}:${a}`)];
}

/** Type II (headline) and Type III (App. H) attribution on the free-form slice. */
export function gridVariance(grid: BenchmarkGrid, axes: readonly string[]): GridVariance | null {
  const freeForm = grid.levels
    .map((l, c) => (l[SCORING_AXIS] === undefined || levelMatches(l[SCORING_AXIS], ["free_form"]) ? c : -1))
    .filter((c) => c >= 0);
  const slice = selectBenchmarkGrid(grid, freeForm);
  const implementation = implementationAxes(slice, axes);
  if (freeForm.length === 0 || implementation.length === 0 || grid.models.length < 2) return null;
  const { table } = attributionTable(slice, implementation);
  const options = { implementation, interactions: gridInteractions(implementation), aliased: "drop" as const };
  const fit = (sums: "II" | "III") => {
    const out = attempt(() => varianceAttribution(table, { ...options, sums }));
    return "value" in out ? out.value : { error: out.error };
  };
  return {
    benchmark: grid.benchmark,
    cells: freeForm.length * grid.models.length,
    implementation,
    typeII: fit("II"),
    typeIII: fit("III"),
  };
}

// ---------------------------------------------------------------- paired effects

export interface PairedEffect extends AbsoluteGapSummary {
  model: string;
  benchmark: string;
  /** Configuration (without the switched axis) of the largest gap. */
  argMaxConfiguration: string;
}

/**
 * Cells paired on every axis but `axis`: value a vs value b, per (model, benchmark); only the
 * configurations `keep` accepts (the scoring-method effect keeps greedy ones).
 */
export function pairedCells(
  cells: readonly GridCell[],
  axes: readonly string[],
  { axis, a, b }: { axis: string; a: string; b: string },
  keep: (levels: Record<string, string>) => boolean = () => true,
): Map<string, { model: string; benchmark: string; rest: string; a: number; b: number }[]> {
  const others = axes.filter((x) => x !== axis);
  const index = new Map<string, GridCell>();
  for (const cell of cells) {
    if (cell.score === null || !keep(cell.levels)) continue;
    const rest = others.map((x) => cell.levels[x]).join(" · ");
    index.set(`${cell.model}\u0000${cell.benchmark}\u0000${rest}\u0000${cell.levels[axis]}`, cell);
  }
  const pairs = new Map<string, { model: string; benchmark: string; rest: string; a: number; b: number }[]>();
  for (const cell of index.values()) {
    if (cell.levels[axis] !== a) continue;
    const rest = others.map((x) => cell.levels[x]).join(" · ");
    const partner = index.get(`${cell.model}\u0000${cell.benchmark}\u0000${rest}\u0000${b}`);
    if (!partner) continue;
    const key = `${cell.model}\u0000${cell.benchmark}`;
    const list = pairs.get(key) ?? [];
    list.push({ model: cell.model, benchmark: cell.benchmark, rest, a: cell.score!, b: partner.score! });
    pairs.set(key, list);
  }
  return pairs;
}

function gapSummaries(pairs: ReturnType<typeof pairedCells>): PairedEffect[] {
  return [...pairs.values()].map((list) => {
    const summary = absoluteGapSummary(
      list.map((p) => p.a),
      list.map((p) => p.b),
    );
    return {
      model: list[0].model,
      benchmark: list[0].benchmark,
      ...summary,
      argMaxConfiguration: list[summary.argMax].rest,
    };
  });
}

/** App. V / Fig. 4: |free-form - logprob| over greedy configurations matched on everything else. */
export function scoringMethodEffects(
  cells: readonly GridCell[],
  axes: readonly string[],
  greedy: string,
): PairedEffect[] {
  const decodingIsAxis = axes.includes("decoding");
  const keep = (l: Record<string, string>) => !decodingIsAxis || levelMatches(l.decoding, [greedy]);
  const levels = new Set(cells.map((c) => c.levels[SCORING_AXIS]));
  const freeForm = [...levels].find((l) => l !== undefined && levelMatches(l, ["free_form"]));
  const logprob = [...levels].find((l) => l !== undefined && levelMatches(l, ["logprob"]));
  if (!freeForm || !logprob) return [];
  return gapSummaries(pairedCells(cells, axes, { axis: SCORING_AXIS, a: freeForm, b: logprob }, keep));
}

/** One paired cell's signed effect of switching the quantization: `delta` = score under b - score under a. */
export interface SignedCellDelta {
  model: string;
  benchmark: string;
  /** The configuration without the quantization axis. */
  configuration: string;
  a: number;
  b: number;
  delta: number;
}

export interface QuantizationEffect {
  a: string;
  b: string;
  perModel: PairedEffect[];
  /**
   * Every paired cell's signed delta (b - a; App. O prints BF16 - NF4), largest |delta| first:
   * the direction the absolute summaries leave out.
   */
  cells: SignedCellDelta[];
  /** Over every paired cell of every model (App. O's 54-cell summary). */
  overall: AbsoluteGapSummary | null;
  /** Per (benchmark, configuration) with every model under both precisions: same induced ordering? */
  ordering: OrderingAgreement | null;
}

/** Each pair's signed delta, largest |delta| first (ties in model, benchmark, configuration order). */
export function signedDeltas(
  pairs: readonly { model: string; benchmark: string; rest: string; a: number; b: number }[],
): SignedCellDelta[] {
  return pairs
    .map((p) => ({ model: p.model, benchmark: p.benchmark, configuration: p.rest, a: p.a, b: p.b, delta: p.b - p.a }))
    .sort(
      (x, y) =>
        Math.abs(y.delta) - Math.abs(x.delta) ||
        x.model.localeCompare(y.model) ||
        x.benchmark.localeCompare(y.benchmark) ||
        x.configuration.localeCompare(y.configuration),
    );
}

/** App. O: each quantization level against the first, paired on every other axis. */
export function quantizationEffects(
  cells: readonly GridCell[],
  axes: readonly string[],
  levels: readonly string[],
  models: readonly string[],
): QuantizationEffect[] {
  const [first, ...others] = levels;
  return others.map((b) => {
    const pairs = pairedCells(cells, axes, { axis: "quantization", a: first, b });
    const all = [...pairs.values()].flat();
    const byCell = new Map<string, Map<string, { a: number; b: number }>>();
    for (const p of all) {
      const key = `${p.benchmark}\u0000${p.rest}`;
      const entry = byCell.get(key) ?? new Map();
      entry.set(p.model, { a: p.a, b: p.b });
      byCell.set(key, entry);
    }
    const complete = [...byCell.values()].filter((m) => models.every((x) => m.has(x)));
    return {
      a: first,
      b,
      perModel: gapSummaries(pairs),
      cells: signedDeltas(all),
      overall: all.length
        ? absoluteGapSummary(
            all.map((p) => p.a),
            all.map((p) => p.b),
          )
        : null,
      ordering:
        complete.length && models.length >= 2
          ? orderingAgreement(
              models,
              complete.map((m) => ({
                scoresA: models.map((x) => m.get(x)!.a),
                scoresB: models.map((x) => m.get(x)!.b),
              })),
            )
          : null,
    };
  });
}
