/**
 * Clusters behind the cluster-robust tests: every contrast and omnibus test is a Wald test on a
 * case-cluster-robust (sandwich) covariance, whose meat is a sum over the G clusters of the
 * clusters' score vectors. Those scores sum to zero at the fit, so the covariance has rank at most
 * G - 1: a scope with no more clusters than its model has coefficients has a singular covariance,
 * and a Wald statistic read from it can be arbitrarily large (a chi-square of 40 on 6 cases whose
 * single contrasts are far from significant). Such a scope fails: its contrasts and its omnibus
 * test are not interpretable. With more clusters than coefficients but fewer than the plan's
 * `few_clusters`, the tests stand with a warning: with few clusters cluster-robust p values run
 * liberal (Cameron & Miller 2015, "A Practitioner's Guide to Cluster-Robust Inference").
 *
 * The scopes are those of the contrasts: pooled, each benchmark, each model; a scope's model is
 * the contrasts' (the compared facet, model, benchmark and the other facets that vary in it).
 * The plan's interaction tests (the compared facet x model, x benchmark) are scopes too, their
 * model the pooled one with the interaction block added.
 */
import { facetRecords } from "../core/data.js";
import type { AnalysisRow } from "../core/table.js";
import {
  clusterCount,
  clusterFinding,
  distinctOf,
  interactionScope,
  modelCoefficients,
  scopesOf,
} from "./cluster-scopes.js";
import { type CellFinding, registerIntegrityCheck } from "./registry.js";

/** Levels of a column of the rows (model, benchmark or a facet). */
function levelCount(rows: readonly AnalysisRow[], column: string): number {
  if (column !== "model" && column !== "benchmark") return distinctOf(facetRecords(rows), (f) => f[column] ?? "");
  const values = new Set<string>();
  for (const r of rows) values.add(column === "model" ? r.model : r.benchmark);
  return values.size;
}

/** Each interaction test's clusters against its model's coefficients (main effects plus the block). */
function interactionFindings(
  fitted: readonly AnalysisRow[],
  comparisonFacet: string,
  interactions: readonly string[],
  fewClusters: number,
): CellFinding[] {
  const clusters = clusterCount(fitted);
  const compared = levelCount(fitted, comparisonFacet);
  return interactions.flatMap((other) => {
    const levels = levelCount(fitted, other);
    if (other === comparisonFacet || compared < 2 || levels < 2) return [];
    const coefficients = modelCoefficients(fitted, comparisonFacet) + (compared - 1) * (levels - 1);
    const finding = clusterFinding(clusters, coefficients, fewClusters);
    const scope = interactionScope(comparisonFacet, other);
    return finding ? [{ condition: "all", benchmark: scope, scope, ...finding }] : [];
  });
}

registerIntegrityCheck({
  name: "few_clusters",
  title: "Clusters behind the cluster-robust tests",
  run({ rows, comparisonFacet, thresholds, interactions = [] }) {
    // The rows a contrast's model is fitted on: answered, not errored.
    const fitted = rows.filter((r) => !r.errored && r.outcome !== null);
    const findings: CellFinding[] = [];
    let fewest = Number.POSITIVE_INFINITY;
    for (const { scope, rows: scoped } of scopesOf(fitted)) {
      if (distinctOf(facetRecords(scoped), (f) => f[comparisonFacet]) < 2) continue;
      const clusters = clusterCount(scoped);
      fewest = Math.min(fewest, clusters);
      const finding = clusterFinding(clusters, modelCoefficients(scoped, comparisonFacet), thresholds.few_clusters);
      if (finding) findings.push({ condition: "all", benchmark: scope, scope, ...finding });
    }
    findings.push(...interactionFindings(fitted, comparisonFacet, interactions, thresholds.few_clusters));
    return {
      threshold: `clusters <= the model's coefficients (singular covariance; warn: < ${thresholds.few_clusters} clusters)`,
      detail: Number.isFinite(fewest) ? `fewest clusters in a scope: ${fewest}` : "no scope with two conditions",
      findings,
    };
  },
});
