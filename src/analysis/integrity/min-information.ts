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
import { caseKeys, intersect } from "../core/pairing.js";
import type { AnalysisRow } from "../core/table.js";
import {
  casesText,
  clusterCount,
  clusterFinding,
  MIN_INFORMATION,
  modelCoefficients,
  scopesOf,
} from "./cluster-scopes.js";
import { type CellFinding, registerIntegrityCheck } from "./registry.js";

/** A level's rows, the case of each (`keys`, in row order) and its distinct cases. */
interface LevelRows {
  cases: Set<string>;
  rows: AnalysisRow[];
  keys: string[];
}

/** Cases (model, item) and clusters (items) of each level of the compared facet. */
function byLevel(rows: readonly AnalysisRow[], facet: string, keyOf: (r: AnalysisRow) => string) {
  const out = new Map<string, LevelRows>();
  for (const r of rows) {
    const level = r.facets[facet];
    let entry = out.get(level);
    if (entry === undefined) {
      entry = { cases: new Set(), rows: [], keys: [] };
      out.set(level, entry);
    }
    const key = keyOf(r);
    entry.cases.add(key);
    entry.rows.push(r);
    entry.keys.push(key);
  }
  return out;
}

/** The item (cluster) of each case among these levels' rows: a case is one model on one item. */
function clusterOfCase(levels: Iterable<LevelRows>): Map<string, string> {
  const out = new Map<string, string>();
  for (const { rows, keys } of levels) for (let i = 0; i < rows.length; i++) out.set(keys[i], rows[i].cluster);
  return out;
}

/** Distinct items (clusters) among these cases (each a case of the levels' rows). */
export function clustersOf(cases: ReadonlySet<string>, clusterOf: ReadonlyMap<string, string>): number {
  const clusters = new Set<string>();
  for (const key of cases) clusters.add(clusterOf.get(key)!);
  return clusters.size;
}

/** A level's rows of these cases. */
function onShared({ rows, keys }: LevelRows, cases: ReadonlySet<string>): AnalysisRow[] {
  const out: AnalysisRow[] = [];
  for (let i = 0; i < rows.length; i++) if (cases.has(keys[i])) out.push(rows[i]);
  return out;
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

registerIntegrityCheck({
  name: MIN_INFORMATION,
  title: "Minimum information behind each number",
  run({ rows, cells, reference, comparisonFacet, thresholds }) {
    const fitted = rows.filter((r) => !r.errored && r.outcome !== null);
    const findings: CellFinding[] = [];
    const { min_cases: minCases, min_expected: minExpected, min_rank_items: minRank } = thresholds;
    for (const { cell, rows: cellRows } of cells.values()) {
      const n = clusterCount(cellRows.filter((r) => !r.errored && r.outcome !== null));
      if (n < minCases)
        findings.push({
          ...cell,
          status: "warn",
          reason: `${casesText(n)} (< ${minCases}): its rate describes it only`,
        });
    }
    let fewest = Number.POSITIVE_INFINITY;
    const keyOf = caseKeys();
    for (const { scope, rows: scoped } of scopesOf(fitted)) {
      const levels = byLevel(scoped, comparisonFacet, keyOf);
      const ref = levels.get(reference);
      if (!ref || levels.size < 2) continue;
      // Built once per scope: a contrast's items are read from its shared cases, not its rows.
      const clusterOf = clusterOfCase(levels.values());
      const clusters = clusterCount(scoped);
      const failedByClusters =
        clusterFinding(clusters, modelCoefficients(scoped, comparisonFacet), thresholds.few_clusters)?.status ===
        "fail";
      for (const [condition, own] of levels) {
        if (condition === reference) continue;
        const shared = intersect(ref.cases, own.cases);
        // No shared case: not comparable (the contrast says so); a failed scope: few_clusters says so.
        if (shared.size === 0 || failedByClusters) continue;
        const n = clustersOf(shared, clusterOf);
        fewest = Math.min(fewest, n);
        const at = { condition, benchmark: scope, scope };
        if (n < minCases) {
          findings.push({ ...at, status: "fail", reason: casesText(n) });
          continue;
        }
        const expected = smallestExpected([armOf(onShared(ref, shared)), armOf(onShared(own, shared))]);
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
