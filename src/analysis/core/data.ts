/**
 * Row selection and columnar views shared by the analyses. Populations follow ScaffoldSafety
 * 6.3 / App. H: intention-to-treat (ITT) scores a parse failure as unsafe (0), the deployed
 * system's view; per-protocol (PP) leaves parse failures out, the underlying model's view.
 * Errored trials (no answer at all) are left out of both unless a specification says otherwise.
 */
import { keptOrSame } from "../../core/kept-or-same.js";
import { type Column, FactorColumnBuilder, type Table } from "../../stats/index.js";
import { type Population, populationScore, type SelectOptions } from "./row.js";
import type { AnalysisRow } from "./table.js";
import { selfScored } from "./trial-columns.js";

export { type Population, populationScore, type SelectOptions } from "./row.js";

export interface ScoredRow {
  row: AnalysisRow;
  /** 0/1 outcome in the chosen population. */
  y: number;
}

export function scoredRows(
  rows: readonly AnalysisRow[],
  population: Population,
  options: SelectOptions = {},
): readonly ScoredRow[] {
  // While every row is its own scored row (views, at their ITT score) no list is made: when all
  // are, the rows' own list serves, so a paper-scale table's rows are not listed a second time.
  let out: ScoredRow[] | null = null;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const y = populationScore(row, population, options);
    const self = y === null ? null : selfScored(row, y);
    if (out === null) {
      if (self) continue;
      out = rows.slice(0, i) as unknown as ScoredRow[];
    }
    if (y !== null) out.push(self ?? { row, y });
  }
  return out ?? (rows as unknown as ScoredRow[]);
}

/**
 * Both populations' rows, as scoredRows gives them. A row both populations score alike (every row
 * but a parse failure) is one shared record: a paper-scale table holds half a million of them;
 * without a parse failure the two lists are one.
 */
export function scoredPopulations(rows: readonly AnalysisRow[]): Record<Population, readonly ScoredRow[]> {
  const itt = scoredRows(rows, "itt");
  return { itt, pp: keptOrSame(itt, (scored) => populationScore(scored.row, "pp") === scored.y) };
}

/** Distinct values in first-seen order, reordered by `order` where it lists them. */
export function distinctValues(values: Iterable<string>, order: readonly string[] = []): string[] {
  const seen = [...new Set(values)];
  const ranked = order.filter((v) => seen.includes(v));
  return [...ranked, ...seen.filter((v) => !ranked.includes(v)).sort()];
}

/**
 * The distinct facets records of the rows. Rows of one condition share one: a facet's levels are
 * read from the few records, not from a list of every row's value (at paper scale each such list
 * is megabytes that V8 puts straight into its old generation).
 */
export function facetRecords(rows: readonly AnalysisRow[]): Set<Record<string, string>> {
  const records = new Set<Record<string, string>>();
  for (const r of rows) records.add(r.facets);
  return records;
}

/** The distinct values of the rows under `value`, without a list of every row's value. */
export function distinctOfRows<T>(rows: readonly AnalysisRow[], value: (row: AnalysisRow) => T): Set<T> {
  const out = new Set<T>();
  for (const r of rows) out.add(value(r));
  return out;
}

/** Facets with two or more levels among these rows (the ones that vary, in facet order). */
export function varyingFacets(rows: readonly AnalysisRow[], facets: readonly string[]): string[] {
  const records = [...facetRecords(rows)];
  return facets.filter((f) => new Set(records.map((r) => r[f])).size > 1);
}

/**
 * A configuration: the values of the varying facets, e.g. "map_reduce · mc". A facet a
 * configuration does not set (a decoding seed under greedy decoding) leaves no empty slot.
 */
export function configurationOf(row: AnalysisRow, varying: readonly string[]): string {
  const values = varying.flatMap((f) => (row.facets[f] ? [row.facets[f]] : []));
  return values.length === 0 ? "(all)" : values.join(" · ");
}

/**
 * The columnar table the regression and ANOVA fitters read: the outcome as numbers, the rest as
 * factor columns (a code per row), which the fitters code without a string per row.
 */
export function columnTable(scored: readonly ScoredRow[], facets: readonly string[]): Table {
  // One pass over the rows fills every column (the fits build this table for each scope).
  const n = scored.length;
  const outcome = new Float64Array(n);
  const model = new FactorColumnBuilder(n);
  const benchmark = new FactorColumnBuilder(n);
  const cluster = new FactorColumnBuilder(n);
  const facetColumns = facets.map(() => new FactorColumnBuilder(n));
  for (let i = 0; i < n; i++) {
    const { row, y } = scored[i];
    outcome[i] = y;
    model.set(i, row.model);
    benchmark.set(i, row.benchmark);
    cluster.set(i, row.cluster);
    const values = row.facets;
    for (let j = 0; j < facets.length; j++) facetColumns[j].set(i, values[facets[j]]);
  }
  const table: Record<string, Column> = {
    outcome,
    model: model.column(),
    benchmark: benchmark.column(),
    cluster: cluster.column(),
  };
  for (const [j, f] of facets.entries()) table[f] = facetColumns[j].column();
  return table;
}

/** Runs a fit that may legitimately fail on the data (separation, rank, convergence). */
export function attempt<T>(fn: () => T): { value: T } | { error: string } {
  try {
    return { value: fn() };
  } catch (error) {
    if (error instanceof Error && !(error instanceof TypeError) && !(error instanceof ReferenceError)) {
      return { error: error.message };
    }
    throw error;
  }
}

/** Groups rows by a key, keeping first-seen key order. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

export function sumOf(scored: readonly ScoredRow[]): number {
  let total = 0;
  for (const s of scored) total += s.y;
  return total;
}
