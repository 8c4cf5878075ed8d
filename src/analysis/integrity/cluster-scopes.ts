/**
 * What the cluster checks (few_clusters, min_information) share with the analyses that report
 * them: the contrasts' scopes, a scope model's coefficients, cluster counts and their verdict,
 * the interaction tests' scope keys, and how a count of cases reads. Kept apart from the checks'
 * own modules so that only the integrity index loads those (and registers them, in its order).
 */
import { termFacets } from "../core/contrast-model.js";
import { facetRecords } from "../core/data.js";
import type { AnalysisRow } from "../core/table.js";
import type { CellFinding } from "./registry.js";

/** A scope of contrasts: its key (as the gate matches it) and its rows. */
interface TestScope {
  scope: string;
  rows: AnalysisRow[];
}

/** Pooled, per benchmark and per model, as the contrasts are computed. */
export function scopesOf(rows: readonly AnalysisRow[]): TestScope[] {
  const grouped = (key: (r: AnalysisRow) => string, label: (v: string) => string): TestScope[] => {
    const by = new Map<string, AnalysisRow[]>();
    for (const r of rows) {
      const list = by.get(key(r));
      if (list) list.push(r);
      else by.set(key(r), [r]);
    }
    return [...by].sort(([a], [b]) => (a < b ? -1 : 1)).map(([v, scoped]) => ({ scope: label(v), rows: scoped }));
  };
  return [
    { scope: "pooled", rows: [...rows] },
    ...grouped(
      (r) => r.benchmark,
      (b) => b,
    ),
    ...grouped(
      (r) => r.model,
      (m) => `model ${m}`,
    ),
  ];
}

/**
 * Coefficients of the scope's model: the intercept and, for each term with two or more levels
 * in the rows, its levels but one (treatment coding, main effects, as the contrasts fit).
 */
export function modelCoefficients(rows: readonly AnalysisRow[], comparisonFacet: string): number {
  const facets = rows.length ? Object.keys(rows[0].facets) : [];
  const models = new Set<string>();
  const benchmarks = new Set<string>();
  for (const r of rows) {
    models.add(r.model);
    benchmarks.add(r.benchmark);
  }
  // Rows of one condition share a facets record: the facets' levels are read from the distinct records.
  const records = facetRecords(rows);
  const levelCounts = [
    distinctOf(records, (f) => f[comparisonFacet]),
    models.size,
    benchmarks.size,
    ...termFacets(facets, comparisonFacet).map((t) => distinctOf(records, (f) => f[t] ?? "")),
  ];
  let coefficients = 1;
  for (const levels of levelCounts) if (levels > 1) coefficients += levels - 1;
  return coefficients;
}

export function distinctOf(
  records: ReadonlySet<Record<string, string>>,
  value: (facets: Record<string, string>) => unknown,
) {
  const values = new Set<unknown>();
  for (const f of records) values.add(value(f));
  return values.size;
}

/** Distinct clusters (items) of the rows. */
export function clusterCount(rows: readonly AnalysisRow[]): number {
  const clusters = new Set<string>();
  for (const r of rows) clusters.add(r.cluster);
  return clusters.size;
}

/** The verdict a scope's tests get from its clusters and coefficients (null: they stand). */
export function clusterFinding(
  clusters: number,
  coefficients: number,
  fewClusters: number,
): Pick<CellFinding, "status" | "reason"> | null {
  if (clusters <= coefficients)
    return { status: "fail", reason: `${clusters} clusters for ${coefficients} coefficients` };
  if (clusters < fewClusters)
    return { status: "warn", reason: `${clusters} clusters (< ${fewClusters}: cluster-robust p values run liberal)` };
  return null;
}

/** The key of an interaction test's scope, as the gate matches it ("scaffold x model"). */
export function interactionScope(comparisonFacet: string, other: string): string {
  return `${comparisonFacet} x ${other}`;
}

/** "1 case", "3 cases": the count a downgraded verdict shows. */
export function casesText(n: number): string {
  return `${n} case${n === 1 ? "" : "s"}`;
}

/** The min-information check's name: a contrast it downgrades also has its intervals withheld (too few cases to show one). */
export const MIN_INFORMATION = "min_information";
