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
import { CHUNK_MAX_RANGE, RandomStream } from "./random.js";

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
    const totals = bootstrapBlockTotals(data, {
      seed,
      blockSize,
      resamples,
      fromBlock: 0,
      toBlock: Math.ceil(resamples / blockSize),
    });
    recordTotals(totals, { cellCount: data.cells.length, first: 0, count: resamples }, statistic, replicates);
  }
  return summariseReplicates(estimate, replicates, level, explicit ? null : (options.seed ?? 1));
}

/**
/** Which resamples a block-totals array holds: the seed, the block size, the total and the blocks' range. */
export interface BlockRange {
  seed: number;
  blockSize: number;
  resamples: number;
  fromBlock: number;
  toBlock: number;
}

/**
 * The per-cell totals of resamples fromBlock * blockSize .. min(toBlock * blockSize, resamples) - 1:
 * per resample, the cells' successes then the cells' trials. Block k draws from the k-th jumped
 * stream of the seed (RandomStream.fillDraws, G draws per resample), so a block's totals are the
 * same whichever thread computes it.
 */
export function bootstrapBlockTotals(data: ClusteredCellCounts, blocks: BlockRange): Float64Array {
  const { seed, blockSize, resamples, fromBlock, toBlock } = blocks;
  const cellCount = data.cells.length;
  const first = fromBlock * blockSize;
  const last = Math.min(toBlock * blockSize, resamples);
  const out = new Float64Array(Math.max(last - first, 0) * 2 * cellCount);
  if (last <= first) return out;
  const streams = RandomStream.independentStreams(seed, toBlock);
  const accumulator = new ResampleAccumulator(data);
  for (let b = first; b < last; b++) {
    accumulator.drawAndAccumulate(streams[Math.floor(b / blockSize)]);
    const offset = (b - first) * 2 * cellCount;
    out.set(accumulator.totals.successes, offset);
    out.set(accumulator.totals.trials, offset + cellCount);
  }
  return out;
}

/** Applies the statistic to resamples first .. first + count - 1 of a block-totals array. */
export function recordTotals(
  totals: Float64Array,
  /** The cells per resample, the first resample's index among the replicates, and how many resamples. */
  layout: { cellCount: number; first: number; count: number },
  statistic: CellStatistic,
  replicates: Float64Array[],
): void {
  const { cellCount, first, count } = layout;
  // One pair of buffers refilled per resample (as the accumulator's totals are): no view per call.
  const resample = { successes: new Float64Array(cellCount), trials: new Float64Array(cellCount) };
  for (let r = 0; r < count; r++) {
    const offset = r * 2 * cellCount;
    for (let c = 0; c < cellCount; c++) {
      resample.successes[c] = totals[offset + c];
      resample.trials[c] = totals[offset + cellCount + c];
    }
    const values = statistic(resample);
    for (let k = 0; k < replicates.length; k++) replicates[k][first + r] = values[k];
  }
}

/** Totals over all clusters once each: the original sample. */
export function originalTotals(data: ClusteredCellCounts): CellTotals {
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
 * Turns drawn cluster indices into per-cell totals, reusing its buffers. The data are
 * kept cluster-major (each cluster's cell successes, then the trials of cells whose row count
 * differs between clusters, padded to a multiple of 4), and the totals of four columns at a time
 * are summed over the draws in local variables: one sequential pass over the draws per four
 * columns, with the running sums in registers (with four columns, the draws are not even stored:
 * RandomStream.sumDrawnRows). A balanced cell's trials total is its row count times the number
 * of draws.
 */
class ResampleAccumulator {
  readonly totals: CellTotals;
  private readonly clusterCount: number;
  /** Per cell: the row count shared by every cluster, or NaN when clusters differ. */
  private readonly constantTrials: Float64Array;
  /** Cluster-major columns: cluster g's column j at g * width + j. */
  private readonly major: Float64Array;
  private readonly width: number;
  /** Column of each cell's trials in `major`, or -1 for a balanced cell. */
  private readonly trialsColumn: Int32Array;
  private readonly sums: Float64Array;
  private readonly draws: Int32Array;

  constructor(data: ClusteredCellCounts) {
    const cellCount = data.cells.length;
    const clusterCount = data.clusters.length;
    this.clusterCount = clusterCount;
    this.totals = { successes: new Float64Array(cellCount), trials: new Float64Array(cellCount) };
    this.constantTrials = Float64Array.from({ length: cellCount }, (_, c) => {
      const first = data.trials[c * clusterCount];
      for (let g = 1; g < clusterCount; g++) if (data.trials[c * clusterCount + g] !== first) return Number.NaN;
      return first;
    });
    this.trialsColumn = new Int32Array(cellCount).fill(-1);
    let columns = cellCount;
    for (let c = 0; c < cellCount; c++) if (Number.isNaN(this.constantTrials[c])) this.trialsColumn[c] = columns++;
    this.width = Math.max(4, Math.ceil(columns / 4) * 4);
    this.major = new Float64Array(clusterCount * this.width);
    this.sums = new Float64Array(this.width);
    this.draws = new Int32Array(clusterCount);
    for (let g = 0; g < clusterCount; g++) {
      for (let c = 0; c < cellCount; c++) {
        this.major[g * this.width + c] = data.successes[c * clusterCount + g];
        const t = this.trialsColumn[c];
        if (t >= 0) this.major[g * this.width + t] = data.trials[c * clusterCount + g];
      }
    }
  }

  /** Totals of explicit resample indices (checked to be in range). */
  accumulate(indices: ArrayLike<number>): void {
    for (let i = 0; i < indices.length; i++) {
      const k = indices[i];
      if (!(k >= 0 && k < this.clusterCount)) throw new RangeError(`cluster index ${k} out of range`);
    }
    this.sumColumns(indices);
    this.finishTotals(indices.length);
  }

  /**
   * Totals of one resample of clusterCount draws from the stream (RandomStream.fillDraws). With
   * four columns the draws are summed as they are made (sumDrawnRows); wider tables store the
   * draws and sum four columns per pass.
   */
  drawAndAccumulate(stream: RandomStream): void {
    const { clusterCount } = this;
    if (this.width === 4 && clusterCount <= CHUNK_MAX_RANGE) {
      stream.sumDrawnRows(this.major, clusterCount, clusterCount, this.sums);
    } else {
      stream.fillDraws(this.draws, clusterCount);
      this.sumColumns(this.draws);
    }
    this.finishTotals(clusterCount);
  }

  private sumColumns(indices: ArrayLike<number>): void {
    const { major, width, sums } = this;
    const n = indices.length;
    for (let q = 0; q < width; q += 4) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < n; i++) {
        const base = indices[i] * width + q;
        s0 += major[base];
        s1 += major[base + 1];
        s2 += major[base + 2];
        s3 += major[base + 3];
      }
      sums[q] = s0;
      sums[q + 1] = s1;
      sums[q + 2] = s2;
      sums[q + 3] = s3;
    }
  }

  /** Copies the column sums into the cell totals; a balanced cell's trials are its row count x n. */
  private finishTotals(n: number): void {
    const { sums } = this;
    const { successes, trials } = this.totals;
    for (let c = 0; c < successes.length; c++) {
      successes[c] = sums[c];
      const t = this.trialsColumn[c];
      trials[c] = t >= 0 ? sums[t] : this.constantTrials[c] * n;
    }
  }
}

/** SE, percentile CIs and undefined counts of the replicates (shared with the parallel bootstrap). */
export function summariseReplicates(
  estimate: number[],
  replicates: Float64Array[],
  level: number,
  seed: number | null,
): ClusterBootstrapResult {
  const standardError: number[] = [];
  const percentileCi: Interval[] = [];
  const undefinedReplicates: number[] = [];
  for (const values of replicates) {
    const finite = finiteSorted(values);
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

/** The finite values, sorted (a copy; the filter is skipped when every value is finite). */
function finiteSorted(values: Float64Array): Float64Array {
  let finite = 0;
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) finite++;
  return (finite === values.length ? values.slice() : values.filter(Number.isFinite)).sort();
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
    const p = new Float64Array(cellCount);
    for (let c = 0; c < cellCount; c++) p[c] = cellProportion(totals, c);
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
