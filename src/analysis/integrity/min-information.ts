/**
 * Minimum information: how much data a number needs before it can back a verdict. few_clusters
 * judges a scope's cluster-robust tests by its clusters against its coefficients; this check
 * judges what each contrast and each cell rests on, where few_clusters has not already failed
 * the scope:
 *
 * - a contrast on fewer shared cases than the plan's `min_cases` fails: its verdict reads
 *   "not interpretable: N cases" (a bootstrap interval from one case is [RD, RD], not a finding);
 * - a cell with fewer cases than `min_cases` warns: its rate and Wilson interval describe it;
 * - a contrast whose arms have an expected count (n*p or n*(1-p) under the pooled rate) below
 *   `min_expected` warns: its Wald and chi-square p values are approximate there (Cochran 1954);
 * - a Spearman p value (degradation by item difficulty) on fewer items than `min_rank_items`
 *   warns, and the analysis prints the correlation without reading its p value.
 *
 * Sources and defaults: docs/ANALYSIS.md, "Comparability and minimum information".
 */
import { caseKey, intersect } from "../core/pairing.js";
import type { AnalysisRow } from "../core/table.js";
import { clusterFinding, modelCoefficients, scopesOf } from "./few-clusters.js";
import { type CellFinding, registerIntegrityCheck } from "./registry.js";

/** "1 case", "3 cases": the count a downgraded verdict shows. */
export function casesText(n: number): string {
  return `${n} case${n === 1 ? "" : "s"}`;
}

/** Cases (model, item) and clusters (items) of each level of the compared facet. */
function byLevel(
  rows: readonly AnalysisRow[],
  facet: string,
): Map<string, { cases: Set<string>; rows: AnalysisRow[] }> {
  const out = new Map<string, { cases: Set<string>; rows: AnalysisRow[] }>();
  for (const r of rows) {
    const level = r.facets[facet];
    const entry = out.get(level) ?? { cases: new Set<string>(), rows: [] };
    entry.cases.add(caseKey(r));
    entry.rows.push(r);
    out.set(level, entry);
  }
  return out;
}

/** Distinct items (clusters) among these cases. */
function clustersOf(rows: readonly AnalysisRow[], cases: ReadonlySet<string>): number {
  return new Set(rows.filter((r) => cases.has(caseKey(r))).map((r) => r.cluster)).size;
}

/** The smallest expected count of the 2 x 2 table (arm x outcome) under the pooled rate. */
export function smallestExpected(arms: readonly { n: number; successes: number }[]): number {
  const n = arms.reduce((t, a) => t + a.n, 0);
  const p = n ? arms.reduce((t, a) => t + a.successes, 0) / n : 0;
  return Math.min(...arms.map((a) => Math.min(a.n * p, a.n * (1 - p))));
}

function armOf(rows: readonly AnalysisRow[]): { n: number; successes: number } {
  return { n: rows.length, successes: rows.filter((r) => r.outcome === 1 && !r.parseFailed).length };
}

/** Its name: a contrast it downgrades also has its intervals withheld (too few cases to show one). */
export const MIN_INFORMATION = "min_information";

registerIntegrityCheck({
  name: MIN_INFORMATION,
  title: "Minimum information behind each number",
  run({ rows, cells, reference, comparisonFacet, thresholds }) {
    const fitted = rows.filter((r) => !r.errored && r.outcome !== null);
    const findings: CellFinding[] = [];
    const { min_cases: minCases, min_expected: minExpected, min_rank_items: minRank } = thresholds;
    for (const { cell, rows: cellRows } of cells.values()) {
      const n = new Set(cellRows.filter((r) => !r.errored && r.outcome !== null).map((r) => r.cluster)).size;
      if (n < minCases)
        findings.push({
          ...cell,
          status: "warn",
          reason: `${casesText(n)} (< ${minCases}): its rate describes it only`,
        });
    }
    let fewest = Number.POSITIVE_INFINITY;
    for (const { scope, rows: scoped } of scopesOf(fitted)) {
      const levels = byLevel(scoped, comparisonFacet);
      const ref = levels.get(reference);
      if (!ref || levels.size < 2) continue;
      const clusters = new Set(scoped.map((r) => r.cluster)).size;
      const failedByClusters =
        clusterFinding(clusters, modelCoefficients(scoped, comparisonFacet), thresholds.few_clusters)?.status ===
        "fail";
      for (const [condition, own] of levels) {
        if (condition === reference) continue;
        const shared = intersect(ref.cases, own.cases);
        // No shared case: not comparable (the contrast says so); a failed scope: few_clusters says so.
        if (shared.size === 0 || failedByClusters) continue;
        const n = clustersOf(scoped, shared);
        fewest = Math.min(fewest, n);
        const at = { condition, benchmark: scope, scope };
        if (n < minCases) {
          findings.push({ ...at, status: "fail", reason: casesText(n) });
          continue;
        }
        const inShared = (r: AnalysisRow) => shared.has(caseKey(r));
        const expected = smallestExpected([armOf(ref.rows.filter(inShared)), armOf(own.rows.filter(inShared))]);
        if (expected < minExpected)
          findings.push({
            ...at,
            status: "warn",
            reason: `smallest expected count ${expected.toFixed(1)} (< ${minExpected}): Wald and chi-square p values approximate`,
          });
        if (scope === "pooled" && n < minRank)
          findings.push({
            ...at,
            status: "warn",
            reason: `Spearman p value on ${n} items (< ${minRank}): not read`,
          });
      }
    }
    return {
      threshold: `a contrast on < ${minCases} shared cases (warn: a cell under ${minCases} cases, an expected count < ${minExpected}, a rank correlation on < ${minRank} items)`,
      detail: Number.isFinite(fewest) ? `fewest shared cases behind a contrast: ${fewest}` : "no contrast to check",
      findings,
    };
  },
});
