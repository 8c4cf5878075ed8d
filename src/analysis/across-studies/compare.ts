/**
 * Across studies: two analysis tables (two studies, or two runs of one spec) paired item by item.
 * A cell is (model, condition, benchmark), matched between A and B by name; a case is a benchmark
 * item. Each matched pair of cells is read on the items both sides ran (the comparability rule of
 * `analyze`): the risk difference B - A with a case-cluster bootstrap interval, the exact McNemar
 * test on trials paired by item and attempt, TOST against the plan's margin, and the plan's
 * correction across the pairs. Definitions: docs/ANALYSIS.md, "Across studies".
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { InputError } from "../../core/errors.js";
import {
  type AdjustmentMethod,
  adjustPValues,
  clusterBootstrap,
  clusteredCellCounts,
  type Interval,
  mcnemarTest,
  pairedTableFromOutcomes,
  riskDifferenceStatistic,
  tostFromBootstrap,
} from "../../stats/index.js";
import { type ScoredRow, scoredRows } from "../core/data.js";
import { casesText } from "../integrity/cluster-scopes.js";
import { intersect, NOT_COMPARABLE } from "../core/pairing.js";
import type { AnalysisTable } from "../core/table.js";

/** The settings of a comparison, from the analysis plan. */
export interface CompareSettings {
  population: "itt" | "pp";
  margin: number;
  alpha: number;
  correction: AdjustmentMethod;
  minCases: number;
  resamples: number;
  seed: number;
  level: number;
}

export function compareSettings(plan: AnalysisPlan): CompareSettings {
  return {
    population: plan.population,
    margin: plan.equivalence.margin,
    alpha: plan.multiplicity.alpha,
    correction: plan.multiplicity.primary,
    minCases: plan.integrity.min_cases,
    resamples: plan.bootstrap.resamples,
    seed: plan.bootstrap.seed,
    level: plan.bootstrap.level,
  };
}

/** Renames from A's names to B's, applied to A's cells before they are matched (`compare --map`). */
export interface NameMap {
  models: Record<string, string>;
  /** Condition labels as `compare` prints them (`scaffold=direct`). */
  conditions: Record<string, string>;
}

export interface CellName {
  model: string;
  condition: string;
  benchmark: string;
}

export interface PairStatistics {
  /** Risk difference B - A on the shared items (row-weighted rates). */
  difference: number;
  ci: Interval;
  /** Trials paired by item and attempt; lost: 1 under A, 0 under B; gained: 0 under A, 1 under B. */
  pairs: number;
  lost: number;
  gained: number;
  /** Exact McNemar p (1 without discordant pairs: nothing to test), and after the correction. */
  p: number;
  pAdjusted: number;
  /** The (1 - 2 alpha) bootstrap interval TOST reads, and whether it lies inside +/- margin. */
  tostCi: Interval;
  equivalent: boolean;
}

export interface PairResult extends CellName {
  casesA: number;
  casesB: number;
  shared: number;
  /** Rates of each side on the shared items (null without any). */
  rateA: number | null;
  rateB: number | null;
  /** Null when not comparable or not interpretable: no interval is read. */
  statistics: PairStatistics | null;
  verdict: string;
}

/** An item whose outcome changed between A and B in one matched pair of cells. */
export interface FlippedItem extends CellName {
  item: string;
  rateA: number;
  rateB: number;
  trialsA: string[];
  trialsB: string[];
  /** The viewer path of the first trials side by side (`compare-links.ts`); only when both sides are studies. */
  view?: string;
}

export interface Comparison {
  a: string;
  b: string;
  settings: CompareSettings;
  pairs: PairResult[];
  /** Most informative first: the largest change, then the pair's smaller adjusted p. */
  flipped: FlippedItem[];
  /** Cells of one side that have no match on the other. */
  unmatchedA: string[];
  unmatchedB: string[];
  /** How to open the flipped items side by side (`compare-links.ts`); only when both sides are studies. */
  viewer?: { command: string };
}

/** One side's cells: key -> scored rows. */
interface Side {
  path: string;
  cells: Map<string, { name: CellName; rows: ScoredRow[] }>;
}

/** The condition label of a row: every facet as name=value in the table's order ("-" without facets). */
export function conditionLabel(table: AnalysisTable, facets: Record<string, string>): string {
  return table.facets.map((f) => `${f}=${facets[f]}`).join(" ") || "-";
}

export function comparedCellLabel(name: CellName): string {
  return `${name.model} | ${name.condition} | ${name.benchmark}`;
}

function sideOf(path: string, table: AnalysisTable, settings: CompareSettings, map?: NameMap): Side {
  const cells = new Map<string, { name: CellName; rows: ScoredRow[] }>();
  for (const scored of scoredRows(table.rows, settings.population)) {
    const { model, benchmark, facets } = scored.row;
    const condition = conditionLabel(table, facets);
    const name = { model: map?.models[model] ?? model, condition: map?.conditions[condition] ?? condition, benchmark };
    const key = comparedCellLabel(name);
    const cell = cells.get(key) ?? { name, rows: [] };
    cell.rows.push(scored);
    cells.set(key, cell);
  }
  return { path, cells };
}

function distinct(side: Side, field: keyof CellName): Set<string> {
  return new Set([...side.cells.values()].map((c) => c.name[field]));
}

/** Refuses a map that renames a model or condition A does not have (a typo would silently match nothing). */
function requireMappedNames(path: string, table: AnalysisTable, map: NameMap): void {
  const models = new Set(table.rows.map((r) => r.model));
  const conditions = new Set(table.rows.map((r) => conditionLabel(table, r.facets)));
  for (const [field, names, known] of [
    ["model", Object.keys(map.models), models],
    ["condition", Object.keys(map.conditions), conditions],
  ] as const) {
    const unknown = names.find((name) => !known.has(name));
    if (unknown !== undefined) {
      throw new InputError(`--map: ${field} '${unknown}' is not in A (${path}): ${[...known].slice(0, 5).join(", ")}`);
    }
  }
}

/** Refuses two sides that share no model, no condition or no benchmark (one line, exit 2). */
function requireSharedNames(a: Side, b: Side): void {
  for (const field of ["model", "condition", "benchmark"] as const) {
    const namesA = distinct(a, field);
    const namesB = distinct(b, field);
    if (intersect(namesA, namesB).size === 0) {
      const list = (names: Set<string>) => [...names].slice(0, 3).join(", ") + (names.size > 3 ? ", ..." : "");
      throw new InputError(
        `${NOT_COMPARABLE.replace("items", `${field}s`)} (A ${a.path}: ${list(namesA)}; B ${b.path}: ${list(namesB)})`,
      );
    }
  }
}

/** Per item: the mean outcome and the trial ids, in attempt order. */
function byItem(rows: readonly ScoredRow[]): Map<string, { rows: ScoredRow[]; rate: number }> {
  const items = new Map<string, ScoredRow[]>();
  for (const s of rows) items.set(s.row.cluster, [...(items.get(s.row.cluster) ?? []), s]);
  const out = new Map<string, { rows: ScoredRow[]; rate: number }>();
  for (const [cluster, list] of items) {
    const sorted = [...list].sort((x, y) => x.row.attempt - y.row.attempt);
    out.set(cluster, { rows: sorted, rate: sorted.reduce((t, s) => t + s.y, 0) / sorted.length });
  }
  return out;
}

function rate(items: Map<string, { rows: ScoredRow[] }>, shared: ReadonlySet<string>): number | null {
  let sum = 0;
  let n = 0;
  for (const cluster of shared) {
    for (const s of items.get(cluster)!.rows) {
      sum += s.y;
      n++;
    }
  }
  return n ? sum / n : null;
}

/** Trials of the shared items paired by attempt: the A and B outcome vectors of McNemar's table. */
function attemptPairs(
  itemsA: Map<string, { rows: ScoredRow[] }>,
  itemsB: Map<string, { rows: ScoredRow[] }>,
  shared: readonly string[],
): { a: number[]; b: number[] } {
  const a: number[] = [];
  const b: number[] = [];
  for (const cluster of shared) {
    const attemptsB = new Map(itemsB.get(cluster)!.rows.map((s) => [s.row.attempt, s.y]));
    for (const s of itemsA.get(cluster)!.rows) {
      const other = attemptsB.get(s.row.attempt);
      if (other === undefined) continue;
      a.push(s.y);
      b.push(other);
    }
  }
  return { a, b };
}

/** One study's side of a matched cell: its scored rows and its rows per item. */
interface CellSide {
  rows: readonly ScoredRow[];
  items: Map<string, { rows: ScoredRow[] }>;
}

function pairStatistics(
  sides: { a: CellSide; b: CellSide },
  shared: readonly string[],
  settings: CompareSettings,
): PairStatistics {
  const rowsA = sides.a.rows;
  const rowsB = sides.b.rows;
  const itemsA = sides.a.items;
  const itemsB = sides.b.items;
  const keep = new Set(shared);
  const observations = [...rowsA.map((s) => ["A", s] as const), ...rowsB.map((s) => ["B", s] as const)].filter(
    ([, s]) => keep.has(s.row.cluster),
  );
  const data = clusteredCellCounts(
    {
      cluster: observations.map(([, s]) => s.row.cluster),
      cell: observations.map(([side]) => side),
      outcome: observations.map(([, s]) => s.y),
    },
    ["A", "B"],
  );
  const boot = clusterBootstrap(data, riskDifferenceStatistic(1, 0), {
    resamples: settings.resamples,
    seed: settings.seed,
    level: settings.level,
  });
  const tost = tostFromBootstrap(boot.replicates[0], settings.margin, settings.alpha);
  const paired = attemptPairs(itemsA, itemsB, shared);
  const table = pairedTableFromOutcomes(paired.a, paired.b);
  const lost = table[0][1];
  const gained = table[1][0];
  return {
    difference: boot.estimate[0],
    ci: boot.percentileCi[0],
    pairs: paired.a.length,
    lost,
    gained,
    p: lost + gained === 0 ? 1 : mcnemarTest(table).exact.p,
    pAdjusted: Number.NaN,
    tostCi: tost.ciTost,
    equivalent: tost.equivalent,
  };
}

function pairOf(
  name: CellName,
  rowsA: readonly ScoredRow[],
  rowsB: readonly ScoredRow[],
  settings: CompareSettings,
): { pair: PairResult; flipped: FlippedItem[] } {
  const itemsA = byItem(rowsA);
  const itemsB = byItem(rowsB);
  const shared = [...intersect(new Set(itemsA.keys()), new Set(itemsB.keys()))].sort();
  const sharedSet = new Set(shared);
  const base = {
    ...name,
    casesA: itemsA.size,
    casesB: itemsB.size,
    shared: shared.length,
    rateA: rate(itemsA, sharedSet),
    rateB: rate(itemsB, sharedSet),
  };
  const flipped = shared
    .filter((c) => itemsA.get(c)!.rate !== itemsB.get(c)!.rate)
    .map((c) => ({
      ...name,
      item: itemsA.get(c)!.rows[0].row.item,
      rateA: itemsA.get(c)!.rate,
      rateB: itemsB.get(c)!.rate,
      trialsA: trialIds(itemsA.get(c)!.rows),
      trialsB: trialIds(itemsB.get(c)!.rows),
    }));
  if (shared.length === 0) return { pair: { ...base, statistics: null, verdict: NOT_COMPARABLE }, flipped };
  if (shared.length < settings.minCases) {
    return { pair: { ...base, statistics: null, verdict: `not interpretable: ${casesText(shared.length)}` }, flipped };
  }
  const sides = { a: { rows: rowsA, items: itemsA }, b: { rows: rowsB, items: itemsB } };
  const statistics = pairStatistics(sides, shared, settings);
  return { pair: { ...base, statistics, verdict: "" }, flipped };
}

function trialIds(rows: readonly ScoredRow[]): string[] {
  return rows.map((s) => s.row.trialId).filter((id): id is string => id !== null);
}

/** The verdict of a pair with statistics: a difference (after the correction), equivalence, or neither. */
function verdictOf(s: PairStatistics, settings: CompareSettings): string {
  const margin = `+/-${(100 * settings.margin).toFixed(1)} pp`;
  if (s.pAdjusted <= settings.alpha) return s.difference > 0 ? "B higher" : "B lower";
  return s.equivalent ? `equivalent within ${margin}` : "inconclusive";
}

/**
 * Pairs A's cells (renamed by `map`) with B's by name and compares each pair on its shared items. Refuses (exit 2) two
 * tables that share no model, condition or benchmark, or whose matched cells share no item.
 */
export function compareTables(
  a: { path: string; table: AnalysisTable },
  b: { path: string; table: AnalysisTable },
  settings: CompareSettings,
  map?: NameMap,
): Comparison {
  if (map) requireMappedNames(a.path, a.table, map);
  const sideA = sideOf(a.path, a.table, settings, map);
  const sideB = sideOf(b.path, b.table, settings);
  requireSharedNames(sideA, sideB);
  const matched = [...sideA.cells.keys()].filter((key) => sideB.cells.has(key)).sort();
  if (matched.length === 0) {
    throw new InputError(`${NOT_COMPARABLE.replace("items", "cells")} (model, condition and benchmark all matching)`);
  }
  const results = matched.map((key) =>
    pairOf(sideA.cells.get(key)!.name, sideA.cells.get(key)!.rows, sideB.cells.get(key)!.rows, settings),
  );
  const pairs = results.map((r) => r.pair);
  if (pairs.every((p) => p.shared === 0)) {
    throw new InputError(`${NOT_COMPARABLE} (${matched.length} matched cells, none with an item in both A and B)`);
  }
  adjust(pairs, settings);
  const pOf = new Map(pairs.map((p) => [comparedCellLabel(p), p.statistics?.pAdjusted ?? 1]));
  const flipped = results
    .flatMap((r) => r.flipped)
    .sort(
      (x, y) =>
        Math.abs(y.rateB - y.rateA) - Math.abs(x.rateB - x.rateA) ||
        pOf.get(comparedCellLabel(x))! - pOf.get(comparedCellLabel(y))! ||
        comparedCellLabel(x).localeCompare(comparedCellLabel(y)) ||
        x.item.localeCompare(y.item, "en", { numeric: true }),
    );
  return {
    a: a.path,
    b: b.path,
    settings,
    pairs,
    flipped,
    unmatchedA: [...sideA.cells.keys()].filter((key) => !sideB.cells.has(key)).sort(),
    unmatchedB: [...sideB.cells.keys()].filter((key) => !sideA.cells.has(key)).sort(),
  };
}

/** The correction across the interpretable pairs, then each pair's verdict. */
function adjust(pairs: PairResult[], settings: CompareSettings): void {
  const tested = pairs.filter((p) => p.statistics);
  if (tested.length) {
    const adjusted = adjustPValues(
      tested.map((p) => p.statistics!.p),
      settings.correction,
      settings.alpha,
    );
    tested.forEach((p, i) => {
      p.statistics!.pAdjusted = adjusted.adjusted[i];
    });
  }
  for (const p of tested) p.verdict = verdictOf(p.statistics!, settings);
}
