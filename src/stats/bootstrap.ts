// Case-cluster bootstrap on per-cluster cell counts.
//
// Observations are reduced once to a dense [cluster x cell] table of outcome sums and trial
// counts (a cell is typically a condition, or a condition x benchmark). A resample draws G
// cluster indices with replacement; a drawn cluster brings ALL of its rows, in every cell, so
// the same draws are shared across conditions (paired comparisons) and across the cells of a
// gap statistic. Each resample accumulates per-cell totals and hands them to a statistic that
// returns one or more numbers. Percentile CIs use linear interpolation (R type 7 = numpy default).
import type { Interval } from "./descriptive.js";
import { quantileSorted, standardDeviation } from "./descriptive.js";
import { RandomStream } from "./random.js";

export interface ClusteredCellCounts {
  /** Cluster ids in code-point order; index k of a resample refers to clusters[k]. */
  readonly clusters: readonly string[];
  readonly cells: readonly string[];
  /** Sum of outcomes per [cell * clusters.length + cluster] (0/1 outcomes or scores in [0, 1]). */
  readonly successes: Float64Array;
  /** Number of rows per [cell * clusters.length + cluster]. */
  readonly trials: Float64Array;
}

export interface ClusteredObservations {
  cluster: ArrayLike<string>;
  cell: ArrayLike<string>;
  outcome: ArrayLike<number>;
}

/**
 * Reduces row-level observations to cluster x cell totals. `cells` fixes which cells are kept and
 * their order (rows of other cells are left out); by default every cell, in code-point order.
 */
export function clusteredCellCounts(rows: ClusteredObservations, cells?: readonly string[]): ClusteredCellCounts {
  const n = rows.outcome.length;
  if (rows.cluster.length !== n || rows.cell.length !== n) throw new RangeError("row columns differ in length");
  const cellList = cells ?? [...new Set(Array.from(rows.cell))].sort();
  const cellIndex = new Map(cellList.map((cell, i) => [cell, i]));
  const clusters = [...new Set(Array.from(rows.cluster))].sort();
  const clusterIndex = new Map(clusters.map((cluster, i) => [cluster, i]));
  const successes = new Float64Array(clusters.length * cellList.length);
  const trials = new Float64Array(clusters.length * cellList.length);
  for (let r = 0; r < n; r++) {
    const c = cellIndex.get(rows.cell[r]);
    if (c === undefined) continue;
    const slot = c * clusters.length + clusterIndex.get(rows.cluster[r])!;
    successes[slot] += rows.outcome[r];
    trials[slot] += 1;
  }
  return { clusters, cells: cellList, successes, trials };
}

/** Per-cell totals of one (re)sample. */
export interface CellTotals {
  readonly successes: Float64Array;
  readonly trials: Float64Array;
}

/** Maps per-cell totals to one or more numbers (NaN where undefined, e.g. an empty cell). */
export type CellStatistic = (totals: CellTotals) => ArrayLike<number>;

export interface ClusterBootstrapOptions {
  /** Number of resamples B (default 10,000); ignored when resampleIndices are given. */
  resamples?: number;
  /** Seed of the resampling stream (default 1). */
  seed?: number;
  /** Percentile CI level (default 0.95). */
  level?: number;
  /** Explicit resamples: each a list of cluster indices (into `clusters`), drawn with replacement. */
  resampleIndices?: readonly ArrayLike<number>[];
  /**
   * Resamples per random stream (default 1,000). Block k uses the k-th jumped stream of the seed,
   * so results do not depend on how blocks are later spread over workers.
   */
  blockSize?: number;
}

export interface ClusterBootstrapResult {
  /** The statistic on the original data. */
  estimate: number[];
  /** replicates[k][b] = component k of the statistic in resample b. */
  replicates: Float64Array[];
  /** SD (n - 1 denominator) of the finite replicates, per component. */
  standardError: number[];
  /** Percentile intervals of the finite replicates, per component. */
  percentileCi: Interval[];
  /** Replicates where the statistic was not finite (left out of SE and CI), per component. */
  undefinedReplicates: number[];
  level: number;
  resamples: number;
  seed: number | null;
}

export function clusterBootstrap(
  data: ClusteredCellCounts,
  statistic: CellStatistic,
  options: ClusterBootstrapOptions = {},
): ClusterBootstrapResult {
  const level = options.level ?? 0.95;
  const clusterCount = data.clusters.length;
  if (clusterCount === 0) throw new RangeError("no clusters to resample");
  const estimate = Array.from(statistic(originalTotals(data)));
  const accumulator = new ResampleAccumulator(data);
  const explicit = options.resampleIndices;
  const resamples = explicit ? explicit.length : (options.resamples ?? 10_000);
  const replicates = estimate.map(() => new Float64Array(resamples));
  const record = (b: number) => {
    const values = statistic(accumulator.totals);
    for (let k = 0; k < replicates.length; k++) replicates[k][b] = values[k];
  };
  if (explicit) {
    explicit.forEach((indices, b) => {
      accumulator.accumulate(indices);
      record(b);
    });
  } else {
    const seed = options.seed ?? 1;
    const blockSize = options.blockSize ?? 1000;
    const streams = RandomStream.independentStreams(seed, Math.ceil(resamples / blockSize));
    const draws = new Int32Array(clusterCount);
    for (let b = 0; b < resamples; b++) {
      streams[Math.floor(b / blockSize)].fillIntegers(draws, clusterCount);
      accumulator.accumulate(draws);
      record(b);
    }
  }
  return summarise(estimate, replicates, level, explicit ? null : (options.seed ?? 1));
}

/** Totals over all clusters once each: the original sample. */
function originalTotals(data: ClusteredCellCounts): CellTotals {
  const cellCount = data.cells.length;
  const clusterCount = data.clusters.length;
  const successes = new Float64Array(cellCount);
  const trials = new Float64Array(cellCount);
  for (let slot = 0; slot < data.successes.length; slot++) {
    const cell = Math.floor(slot / clusterCount);
    successes[cell] += data.successes[slot];
    trials[cell] += data.trials[slot];
  }
  return { successes, trials };
}

/**
 * Turns a list of drawn cluster indices into per-cell totals, reusing its buffers. Drawn clusters
 * are compacted to (index, multiplicity) pairs (about 37% of clusters are not drawn), then each
 * cell's total is a dot product over that list, which keeps the running sums in registers.
 */
class ResampleAccumulator {
  readonly totals: CellTotals;
  private readonly multiplicity: Int32Array;
  private readonly drawnCluster: Int32Array;
  private readonly drawnTimes: Float64Array;
  /** Per cell: the row count shared by every cluster, or NaN when clusters differ. */
  private readonly constantTrials: Float64Array;

  constructor(private readonly data: ClusteredCellCounts) {
    const cellCount = data.cells.length;
    const clusterCount = data.clusters.length;
    this.totals = { successes: new Float64Array(cellCount), trials: new Float64Array(cellCount) };
    this.multiplicity = new Int32Array(clusterCount);
    this.drawnCluster = new Int32Array(clusterCount);
    this.drawnTimes = new Float64Array(clusterCount);
    this.constantTrials = Float64Array.from({ length: cellCount }, (_, c) => {
      const first = data.trials[c * clusterCount];
      for (let g = 1; g < clusterCount; g++) if (data.trials[c * clusterCount + g] !== first) return Number.NaN;
      return first;
    });
  }

  accumulate(indices: ArrayLike<number>): void {
    const drawn = this.compactDraws(indices);
    const { drawnCluster, drawnTimes, constantTrials } = this;
    const { successes, trials } = this.data;
    const clusterCount = this.multiplicity.length;
    const cellCount = this.totals.successes.length;
    for (let c = 0; c < cellCount; c++) {
      const base = c * clusterCount;
      let s = 0;
      for (let j = 0; j < drawn; j++) s += drawnTimes[j] * successes[base + drawnCluster[j]];
      this.totals.successes[c] = s;
      if (!Number.isNaN(constantTrials[c])) {
        // Balanced cell (same row count in every cluster): its total is that count times the draws.
        this.totals.trials[c] = constantTrials[c] * indices.length;
        continue;
      }
      let t = 0;
      for (let j = 0; j < drawn; j++) t += drawnTimes[j] * trials[base + drawnCluster[j]];
      this.totals.trials[c] = t;
    }
  }

  /** Fills (drawnCluster, drawnTimes) with each distinct drawn cluster; returns how many. */
  private compactDraws(indices: ArrayLike<number>): number {
    const { multiplicity, drawnCluster, drawnTimes } = this;
    const clusterCount = multiplicity.length;
    multiplicity.fill(0);
    for (let i = 0; i < indices.length; i++) {
      const k = indices[i];
      if (!(k >= 0 && k < clusterCount)) throw new RangeError(`cluster index ${k} out of range`);
      multiplicity[k]++;
    }
    let drawn = 0;
    for (let g = 0; g < clusterCount; g++) {
      if (multiplicity[g] === 0) continue;
      drawnCluster[drawn] = g;
      drawnTimes[drawn] = multiplicity[g];
      drawn++;
    }
    return drawn;
  }
}

function summarise(
  estimate: number[],
  replicates: Float64Array[],
  level: number,
  seed: number | null,
): ClusterBootstrapResult {
  const standardError: number[] = [];
  const percentileCi: Interval[] = [];
  const undefinedReplicates: number[] = [];
  for (const values of replicates) {
    const finite = values.filter(Number.isFinite).sort();
    undefinedReplicates.push(values.length - finite.length);
    standardError.push(standardDeviation(finite));
    percentileCi.push([quantileSorted(finite, (1 - level) / 2), quantileSorted(finite, (1 + level) / 2)]);
  }
  return {
    estimate,
    replicates,
    standardError,
    percentileCi,
    undefinedReplicates,
    level,
    resamples: replicates[0]?.length ?? 0,
    seed,
  };
}

// ---------------------------------------------------------------- ready-made statistics

/** Proportion of a cell: successes/trials (NaN for an empty cell). */
export function cellProportion(totals: CellTotals, cell: number): number {
  return totals.trials[cell] > 0 ? totals.successes[cell] / totals.trials[cell] : Number.NaN;
}

/** p_a - p_b (row-weighted proportions of two cells). */
export function riskDifferenceStatistic(cellA: number, cellB: number): CellStatistic {
  return (totals) => [cellProportion(totals, cellA) - cellProportion(totals, cellB)];
}

/** Every p_i - p_j for i < j, with the (i, j) pairs in output order. */
export function pairwiseRiskDifferences(cellCount: number): { statistic: CellStatistic; pairs: [number, number][] } {
  const pairs: [number, number][] = [];
  for (let i = 0; i < cellCount; i++) {
    for (let j = i + 1; j < cellCount; j++) pairs.push([i, j]);
  }
  const statistic: CellStatistic = (totals) => {
    const p = Float64Array.from({ length: cellCount }, (_, c) => cellProportion(totals, c));
    return pairs.map(([i, j]) => p[i] - p[j]);
  };
  return { statistic, pairs };
}

/** Gap (difference in differences): (p_a - p_b) - (p_c - p_d), e.g. a scaffold effect on two benchmarks. */
export function gapStatistic(a: number, b: number, c: number, d: number): CellStatistic {
  return (totals) => [
    cellProportion(totals, a) - cellProportion(totals, b) - (cellProportion(totals, c) - cellProportion(totals, d)),
  ];
}
