/**
 * The grid's cells (SafetyRepro §3): one score per (model, benchmark, configuration), where a
 * configuration is the combination of the grid axes present. A cell's score is the mean over
 * items of each item's mean over decoding seeds and attempts (stochastic decoding is averaged per
 * item before anything else). A cell whose errored or parse-failure share exceeds the integrity
 * thresholds, or whose condition the integrity gate failed, is unreadable: it yields no number.
 */
import type { IntegrityPlan } from "../../contracts/analysis.js";
import type { GridPlan } from "../../contracts/analysis/grid.js";
import { type Population, populationScore } from "../core/data.js";
import { childMap } from "../core/pairing.js";
import type { IntegrityResult } from "../integrity/gate.js";
import type { AnalysisRow } from "../core/table.js";

export interface GridCell {
  model: string;
  benchmark: string;
  /** Configuration key: the axis values joined with " · ", in axis order. */
  configuration: string;
  /** Axis -> value of this configuration. */
  levels: Record<string, string>;
  /** Mean over items of the per-item mean over seeds and attempts; null when unreadable or nothing scored. */
  score: number | null;
  items: number;
  trials: number;
  /** Share of the non-errored trials whose answer parsed (1 when nothing needed parsing). */
  parseRate: number;
  erroredShare: number;
  /** Why the cell yields no number (integrity), else absent. */
  unreadable?: string;
  /** Weights hashes / provider versions recorded on the cell's trials. */
  revisions: string[];
  /** Item -> its mean over seeds and attempts (for item subsamples; not part of the stored result). */
  itemMeans: Map<string, number>;
}

export interface GridAxes {
  /** Plan axes present in the table, in plan order. */
  axes: string[];
  /** Axis -> its levels in the table's order. */
  levels: Record<string, string[]>;
}

/**
 * The plan's axes (default: every facet) that are columns of the table; the seed facet never is one.
 * Their levels are read from the rows' distinct facets records (`facetRecords`).
 */
export function gridAxes(
  plan: GridPlan,
  facets: readonly string[],
  facetLevels: Record<string, string[]>,
  records: readonly Record<string, string>[],
): GridAxes {
  const axes = (plan.axes ?? facets).filter((a) => a !== plan.seed_facet && facets.includes(a));
  const levels: Record<string, string[]> = {};
  for (const axis of axes) {
    const present = new Set(records.map((f) => f[axis]));
    levels[axis] = (facetLevels[axis] ?? [...present]).filter((l) => present.has(l));
  }
  return { axes, levels };
}

export function configurationKey(levels: Record<string, string>, axes: readonly string[]): string {
  return axes.map((a) => levels[a]).join(" · ");
}

interface CellAccumulator {
  cell: GridCell;
  /**
   * item -> its place in `sums` and `counts` (its outcomes' sum and count over seeds and
   * attempts): two number lists, not a pair per item, as a paper-scale grid has some hundred
   * thousand (cell, item) pairs at once.
   */
  places: Map<string, number>;
  sums: number[];
  counts: number[];
  errored: number;
  parseFailed: number;
  revisions: Set<string>;
}

/** The row's cell by its string key (model, benchmark, axis values): found, or added in first-seen order. */
function cellAccumulator(
  cells: Map<string, CellAccumulator>,
  row: AnalysisRow,
  axes: readonly string[],
): CellAccumulator {
  let key = `${row.model}\u0000${row.benchmark}`;
  for (const a of axes) key += `\u0000${row.facets[a]}`;
  const known = cells.get(key);
  if (known) return known;
  const levels = Object.fromEntries(axes.map((a) => [a, row.facets[a]]));
  const acc: CellAccumulator = {
    cell: {
      model: row.model,
      benchmark: row.benchmark,
      configuration: configurationKey(levels, axes),
      levels,
      score: null,
      items: 0,
      trials: 0,
      parseRate: 1,
      erroredShare: 0,
      revisions: [],
      itemMeans: new Map(),
    },
    places: new Map(),
    sums: [],
    counts: [],
    errored: 0,
    parseFailed: 0,
    revisions: new Set(),
  };
  cells.set(key, acc);
  return acc;
}

/** The cells of the rows, in first-seen order, with scores and integrity marks. */
export function gridCells(
  rows: readonly AnalysisRow[],
  axes: readonly string[],
  scoring: { population: Population; thresholds: IntegrityPlan },
  gate?: { integrity: IntegrityResult; comparisonFacet: string },
): GridCell[] {
  const { population, thresholds } = scoring;
  const cells = new Map<string, CellAccumulator>();
  // Rows share their facets record (one per condition) and their model and benchmark names: a
  // row finds its cell through them, and a cell's string key is built once per record.
  const byRecord = new Map<Record<string, string>, Map<string, Map<string, CellAccumulator>>>();
  for (const row of rows) {
    const ofModel = childMap(childMap(byRecord, row.facets), row.model);
    let acc = ofModel.get(row.benchmark);
    if (acc === undefined) {
      acc = cellAccumulator(cells, row, axes);
      ofModel.set(row.benchmark, acc);
    }
    acc.cell.trials++;
    if (row.errored) acc.errored++;
    else if (row.parseFailed) acc.parseFailed++;
    if (row.modelRevision) acc.revisions.add(row.modelRevision);
    // Seeds and attempts are averaged within the item first (§3: a sampling setting's score is a seed mean).
    const y = populationScore(row, population);
    if (y === null) continue;
    const place = acc.places.get(row.item);
    if (place !== undefined) {
      acc.sums[place] += y;
      acc.counts[place]++;
    } else {
      acc.places.set(row.item, acc.sums.length);
      acc.sums.push(y);
      acc.counts.push(1);
    }
  }
  const failedConditions = gateFailures(gate);
  return [...cells.values()].map((acc) => finishCell(acc, thresholds, failedConditions, gate?.comparisonFacet));
}

function finishCell(
  acc: CellAccumulator,
  thresholds: IntegrityPlan,
  failed: Map<string, string>,
  comparisonFacet: string | undefined,
): GridCell {
  const { cell } = acc;
  const answered = cell.trials - acc.errored;
  cell.erroredShare = cell.trials ? acc.errored / cell.trials : 0;
  cell.parseRate = answered ? 1 - acc.parseFailed / answered : 0;
  cell.items = acc.places.size;
  cell.revisions = [...acc.revisions].sort();
  const gateReason = comparisonFacet
    ? failed.get(`${cell.levels[comparisonFacet] ?? ""}\u0000${cell.benchmark}`)
    : undefined;
  if (cell.erroredShare > thresholds.errored) {
    cell.unreadable = `${pct(cell.erroredShare)} of its trials errored (threshold ${pct(thresholds.errored)})`;
  } else if (1 - cell.parseRate > thresholds.parse_failures) {
    cell.unreadable = `${pct(1 - cell.parseRate)} parse failures (threshold ${pct(thresholds.parse_failures)})`;
  } else if (gateReason) {
    cell.unreadable = `integrity gate: ${gateReason}`;
  } else if (acc.places.size === 0) {
    cell.unreadable = "no scored trials";
  } else {
    for (const [item, place] of acc.places) cell.itemMeans.set(item, acc.sums[place] / acc.counts[place]);
    cell.score = meanOfItems(cell.itemMeans);
  }
  return cell;
}

function meanOfItems(itemMeans: ReadonlyMap<string, number>, keep?: (item: string) => boolean): number | null {
  let total = 0;
  let n = 0;
  for (const [item, mean] of itemMeans) {
    if (keep && !keep(item)) continue;
    total += mean;
    n++;
  }
  return n > 0 ? total / n : null;
}

/** The cells re-scored on the items `keep` accepts (App. X's item subsamples); unreadable cells stay so. */
export function cellsOnItems(
  cells: readonly GridCell[],
  keep: (benchmark: string, item: string) => boolean,
): GridCell[] {
  return cells.map((cell) => {
    if (cell.score === null) return cell;
    const score = meanOfItems(cell.itemMeans, (item) => keep(cell.benchmark, item));
    return { ...cell, score, ...(score === null ? { unreadable: "no item in the subsample" } : {}) };
  });
}

/** The gate's failed (condition, benchmark) cells, keyed as finishCell looks them up. */
function gateFailures(gate?: { integrity: IntegrityResult }): Map<string, string> {
  const out = new Map<string, string>();
  for (const check of gate?.integrity.checks ?? []) {
    for (const finding of check.cells) {
      const key = `${finding.condition}\u0000${finding.benchmark}`;
      // A scope's finding concerns its tests, not a cell's rows.
      if (finding.status === "fail" && finding.scope === undefined && !out.has(key)) out.set(key, finding.reason);
    }
  }
  return out;
}

function pct(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}
