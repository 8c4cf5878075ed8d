// Named statistics over per-cell sums, with one case-cluster bootstrap shared by all of them.
//
// Rows are (cluster, cell, value): a cell can be "accuracy of model m under scaffold s" (value 0/1),
// "tool calls of that cell" (value = count) or "cost of that cell" (value = dollars). Every named
// quantity is a function of the per-cell sums and row counts, so ratios of sums (a mean, a rate,
// cost per correct, a gap, a difference of differences) all see the SAME cluster draws in each
// resample: a question drawn twice brings all its attempts, in every cell, twice.
import type { CellTotals, ClusterBootstrapOptions } from "./bootstrap.js";
import { clusterBootstrap, clusteredCellCounts } from "./bootstrap.js";
import type { Interval } from "./descriptive.js";

export interface ClusterValueRows {
  cluster: string[];
  cell: string[];
  value: number[];
}

/** Read access to the per-cell totals of one (re)sample, by cell name. */
export interface CellView {
  /** Sum of the cell's values (NaN for a cell no row names). */
  sum(cell: string): number;
  /** Number of the cell's rows. */
  count(cell: string): number;
  /** sum / count (NaN for an empty cell). */
  mean(cell: string): number;
}

/** A statistic of the per-cell totals; NaN where undefined (e.g. an empty cell). */
export type CellQuantity = (view: CellView) => number;

export interface QuantityEstimate {
  estimate: number;
  /** Percentile interval of the finite replicates; null when no replicate is finite. */
  ci: Interval | null;
  /** Resamples in which the quantity was undefined (left out of the interval). */
  undefinedReplicates: number;
}

/** Appends one row; a non-finite value is skipped (the cell simply has no row for it). */
export function addClusterValue(rows: ClusterValueRows, cluster: string, cell: string, value: number | null): void {
  if (value === null || !Number.isFinite(value)) return;
  rows.cluster.push(cluster);
  rows.cell.push(cell);
  rows.value.push(value);
}

export function emptyClusterValueRows(): ClusterValueRows {
  return { cluster: [], cell: [], value: [] };
}

function cellView(index: Map<string, number>, totals: CellTotals): CellView {
  const at = (cell: string) => index.get(cell);
  return {
    sum: (cell) => {
      const i = at(cell);
      return i === undefined ? Number.NaN : totals.successes[i];
    },
    count: (cell) => {
      const i = at(cell);
      return i === undefined ? 0 : totals.trials[i];
    },
    mean: (cell) => {
      const i = at(cell);
      return i === undefined || !(totals.trials[i] > 0) ? Number.NaN : totals.successes[i] / totals.trials[i];
    },
  };
}

/**
 * Every named quantity on the data and its percentile CI from one case-cluster bootstrap
 * (resamples of whole clusters with replacement; default B = 10,000, seed 1, 95%).
 */
export function clusterQuantities(
  rows: ClusterValueRows,
  quantities: ReadonlyMap<string, CellQuantity>,
  options: ClusterBootstrapOptions = {},
): Map<string, QuantityEstimate> {
  const out = new Map<string, QuantityEstimate>();
  if (quantities.size === 0 || rows.value.length === 0) return out;
  const data = clusteredCellCounts({ cluster: rows.cluster, cell: rows.cell, outcome: rows.value });
  const index = new Map(data.cells.map((c, i) => [c, i]));
  const fns = [...quantities.values()];
  const result = clusterBootstrap(
    data,
    (totals) => {
      const view = cellView(index, totals);
      return fns.map((f) => f(view));
    },
    options,
  );
  [...quantities.keys()].forEach((name, k) => {
    const finite = result.replicates[k].length - result.undefinedReplicates[k];
    out.set(name, {
      estimate: result.estimate[k],
      ci: finite > 0 ? result.percentileCi[k] : null,
      undefinedReplicates: result.undefinedReplicates[k],
    });
  });
  return out;
}
