/**
 * Comparability: which cases two conditions share. A case is one item seen by one model (the
 * model and the item's cluster); a contrast between two conditions is read on the cases both
 * were run on (paired), so a difference is never a difference between item sets. Two conditions
 * that share no case are not comparable; comparing different item sets as independent samples
 * is only done when the plan asks for it (`comparability: unpaired`) and is labelled so.
 */
import type { ScoredRow } from "./data.js";
import type { AnalysisRow } from "./table.js";

export const NOT_COMPARABLE = "not comparable: no shared items";

/** How a contrast's two sides were matched, and on how many cases. */
export interface Pairing {
  /** paired: on the shared cases only; unpaired: every case of each side, as asked by the plan. */
  mode: "paired" | "unpaired";
  /** Cases both sides have. */
  shared: number;
  /** Cases of the reference, and of the condition, in the scope. */
  referenceCases: number;
  conditionCases: number;
}

/** A key part as Array.prototype.join writes it (null and undefined as ""): keys joined by hand match joined ones. */
export function joinText(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

/** The map under `key` in `parent`, added when absent: nested maps key rows by shared names without a joined string per row. */
export function childMap<K, C extends Map<unknown, unknown>>(parent: Map<K, C>, key: K): C {
  let child = parent.get(key);
  if (child === undefined) {
    child = new Map() as C;
    parent.set(key, child);
  }
  return child;
}

/** The case a row belongs to: its model and its item (cluster). */
export function caseKey(row: Pick<AnalysisRow, "model" | "cluster">): string {
  return `${row.model}\u0000${row.cluster}`;
}

/**
 * caseKey as a function that builds each case's key once: rows of one case repeat it under every
 * level and attempt, and a set of cases then hashes one string per case, not a new one per row.
 */
export function caseKeys(): (row: Pick<AnalysisRow, "model" | "cluster">) => string {
  const byModel = new Map<string, Map<string, string>>();
  return (row) => {
    const ofModel = childMap(byModel, row.model);
    let key = ofModel.get(row.cluster);
    if (key === undefined) {
      key = caseKey(row);
      ofModel.set(row.cluster, key);
    }
    return key;
  };
}

/** The cases each level of `facet` has among these rows (scored or analysed). */
export function casesByLevel(rows: readonly (ScoredRow | AnalysisRow)[], facet: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const keyOf = caseKeys();
  for (const item of rows) {
    const row = "row" in item ? item.row : item;
    const level = row.facets[facet];
    let cases = out.get(level);
    if (!cases) {
      cases = new Set<string>();
      out.set(level, cases);
    }
    cases.add(keyOf(row));
  }
  return out;
}

export function intersect(a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  return new Set([...small].filter((k) => large.has(k)));
}

/** Rows of these cases only. */
export function onCases(rows: readonly ScoredRow[], cases: ReadonlySet<string>): ScoredRow[] {
  return rows.filter((s) => cases.has(caseKey(s.row)));
}

/** The cases every group of rows has (a case in one group only is unpaired). */
export function casesInEvery(groups: readonly (readonly ScoredRow[])[]): Set<string> {
  const sets = groups.map((rows) => new Set(rows.map((s) => caseKey(s.row))));
  if (sets.length === 0) return new Set();
  return sets.slice(1).reduce((shared, next) => intersect(shared, next), sets[0]);
}
