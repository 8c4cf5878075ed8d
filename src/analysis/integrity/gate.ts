/**
 * The gate: runs every registered check on the cells of the analysed rows, then downgrades each
 * verdict whose cells carry a failed finding to "not interpretable: <reason>" and records which
 * verdicts each check downgraded.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { allContrastScopes, type Contrast, type ContrastScope } from "../contrast-model.js";
import type { AnalysisResults } from "../registry.js";
import type { AnalysisRow } from "../table.js";
import "./index.js";
import { interactionScope } from "./few-clusters.js";
import { type PlantedFailure, plantedFailures } from "./planted.js";
import {
  type CellFinding,
  type CheckStatus,
  cellKey,
  type IntegrityCell,
  integrityChecks,
  type IntegrityFacts,
  type JudgeFacts,
} from "./registry.js";

export interface IntegrityCheckResult {
  check: string;
  title: string;
  status: CheckStatus;
  threshold: string;
  detail: string;
  /** The cells the check flags. */
  cells: CellFinding[];
  /** The verdicts it downgraded ("ITT pooled map_reduce"). */
  downgraded: string[];
}

export interface IntegrityResult {
  checks: IntegrityCheckResult[];
  /** Any check failed: `analyze` exits 3. */
  failed: boolean;
  /** The failures the study declares it plants (analysis.integrity.planted), and whether each occurred. */
  planted?: PlantedFailure[];
}

export const NOT_INTERPRETABLE = "not interpretable";
/** The check whose failure withholds a contrast's intervals (too few cases to show one). */
const MIN_INFORMATION = "min_information";

export function runIntegrityChecks(
  rows: readonly AnalysisRow[],
  plan: AnalysisPlan,
  comparisonFacet: string,
  reference: string,
  judges?: JudgeFacts,
  facts: IntegrityFacts = {},
): IntegrityResult {
  const cells = new Map<string, { cell: IntegrityCell; rows: AnalysisRow[] }>();
  for (const row of rows) {
    const cell = { condition: row.facets[comparisonFacet], benchmark: row.benchmark };
    const key = cellKey(cell);
    const entry = cells.get(key) ?? { cell, rows: [] };
    entry.rows.push(row);
    cells.set(key, entry);
  }
  const context = {
    rows,
    cells,
    reference,
    comparisonFacet,
    thresholds: plan.integrity,
    interactions: plan.hypotheses.interactions,
    judges,
    facts,
  };
  const checks = integrityChecks().map((check): IntegrityCheckResult => {
    const outcome = check.run(context);
    const status: CheckStatus = outcome.status ?? statusOf(outcome.findings);
    return {
      check: check.name,
      title: check.title,
      status,
      threshold: outcome.threshold,
      detail: outcome.detail,
      cells: outcome.findings,
      downgraded: [],
    };
  });
  const planted = plan.integrity.planted;
  return {
    checks,
    failed: checks.some((c) => c.status === "fail"),
    ...(planted ? { planted: plantedFailures(planted, checks) } : {}),
  };
}

function statusOf(findings: readonly CellFinding[]): CheckStatus {
  return findings.some((f) => f.status === "fail") ? "fail" : findings.length ? "warn" : "pass";
}

/**
 * Findings on the tests of contrast scopes the analyses did not compute (a study whose kinds
 * leave the contrasts out) are dropped: a check left with none of its scopes is not available.
 */
function keepComputedScopes(
  results: Partial<AnalysisResults>,
  integrity: IntegrityResult,
  comparisonFacet: string | undefined,
): void {
  const computed = new Set<string>();
  for (const population of ["itt", "pp"] as const) {
    const contrasts = results.contrasts?.[population];
    if (!contrasts) continue;
    // A scope whose contrasts are all not comparable has no test to check.
    for (const { scope } of allContrastScopes(contrasts))
      if (scope.contrasts.some((c) => !c.notComparable)) computed.add(scopeKey(scope));
  }
  for (const i of results.hypotheses?.interactions ?? [])
    if (i.test && comparisonFacet) computed.add(interactionScope(comparisonFacet, i.with));
  for (const check of integrity.checks) {
    const scoped = check.cells.filter((f) => f.scope !== undefined);
    if (scoped.length === 0) continue;
    check.cells = check.cells.filter((f) => f.scope === undefined || computed.has(f.scope));
    // A check with findings on cells too (min_information) keeps its status from those.
    if (computed.size === 0 && check.cells.length === 0) {
      check.status = "not available";
      check.detail = "no contrast was computed in this study, so no cluster-robust test to check";
    } else if (check.status !== "not available") check.status = statusOf(check.cells);
  }
  integrity.failed = integrity.checks.some((c) => c.status === "fail");
}

function scopeKey(scope: ContrastScope): string {
  return scope.kind === "model" ? `model ${scope.scope}` : scope.scope;
}

/** The failed findings on these cells, first reason first; null when the verdict stands. */
function failureOn(
  integrity: IntegrityResult,
  cells: IntegrityCell[],
): { reason: string; checks: IntegrityCheckResult[] } | null {
  const keys = new Set(cells.map(cellKey));
  // A scope's finding (its tests, not its rows) is read by scopeFailure.
  const hits = integrity.checks
    .map((check) => ({
      check,
      finding: check.cells.find((f) => f.status === "fail" && f.scope === undefined && keys.has(cellKey(f))),
    }))
    .filter((h) => h.finding !== undefined);
  if (hits.length === 0) return null;
  return { reason: hits[0].finding?.reason ?? "", checks: hits.map((h) => h.check) };
}

/** Downgrades the verdicts of `results` that use a failed cell, in place. */
export function gateVerdicts(
  results: Partial<AnalysisResults>,
  integrity: IntegrityResult,
  reference: string,
  comparisonFacet?: string,
): void {
  keepComputedScopes(results, integrity, comparisonFacet);
  if (comparisonFacet) gateInteractions(results, integrity, comparisonFacet);
  gateFlips(results, integrity, reference);
  gateRecovery(results, integrity, reference);
  gateFormat(results, integrity, reference);
  const contrasts = results.contrasts;
  if (!contrasts) return;
  for (const population of ["itt", "pp"] as const) {
    // Every scope: pooled, per benchmark, per model, and each format's when format is a facet.
    for (const { scope, benchmark } of allContrastScopes(contrasts[population])) {
      const label = `${scope.kind === "model" ? "model " : ""}${scope.scope}${scope.format ? ` ${scope.format}` : ""}`;
      const testFailure = scopeFailure(integrity, scopeKey(scope));
      for (const contrast of scope.contrasts) {
        const cells = cellsOf(integrity, benchmark, [contrast.condition, reference]);
        const verdict = `${population.toUpperCase()} ${label} ${contrast.condition}`;
        const contrastFailure = testFailure ?? scopeFailure(integrity, scopeKey(scope), contrast.condition);
        downgrade(contrast, integrity, cells, verdict, contrastFailure);
      }
      if (testFailure && scope.omnibus && "chi2" in scope.omnibus) {
        scope.omnibusNotInterpretable = testFailure.reason;
        for (const check of testFailure.checks) check.downgraded.push(`${population.toUpperCase()} ${label} omnibus`);
      }
    }
  }
}

/** Paired flips (McNemar): a benchmark's or all benchmarks' pairs of the condition and the reference. */
function gateFlips(results: Partial<AnalysisResults>, integrity: IntegrityResult, reference: string): void {
  for (const flip of results.paired?.flips ?? []) {
    const cells = cellsOf(integrity, flip.benchmark === "all" ? null : flip.benchmark, [flip.condition, reference]);
    const failure = failureOn(integrity, cells);
    if (!failure) continue;
    flip.notInterpretable = failure.reason;
    for (const check of failure.checks) check.downgraded.push(`flips ${flip.benchmark} ${flip.condition}`);
  }
}

/** Option-preserving recovery per model: the reference, standard and preserving cells of every benchmark. */
function gateRecovery(results: Partial<AnalysisResults>, integrity: IntegrityResult, reference: string): void {
  const op = results.optionPreserving;
  if (!op || "skipped" in op) return;
  const failure = failureOn(integrity, cellsOf(integrity, null, [reference, op.standard, op.preserving]));
  if (!failure) return;
  for (const row of op.rows) {
    row.notInterpretable = failure.reason;
    for (const check of failure.checks) check.downgraded.push(`recovery ${row.model}`);
  }
}

/** The scaffold x format 2x2: each condition's within-format TOST reads its and the reference's cells. */
function gateFormat(results: Partial<AnalysisResults>, integrity: IntegrityResult, reference: string): void {
  const format = results.format;
  if (!format || "skipped" in format) return;
  for (const w of format.withinFormat) {
    const failure = failureOn(integrity, cellsOf(integrity, null, [w.condition, reference]));
    if (!failure) continue;
    w.notInterpretable = failure.reason;
    for (const check of failure.checks) check.downgraded.push(`format 2x2 ${w.condition}`);
  }
}

/** The cells of these conditions in one benchmark, or in every benchmark (null). */
function cellsOf(integrity: IntegrityResult, benchmark: string | null, conditions: string[]): IntegrityCell[] {
  const benchmarks = new Set(integrity.checks.flatMap((c) => c.cells.map((f) => f.benchmark)));
  const chosen = benchmark === null ? [...benchmarks] : [benchmark];
  return chosen.flatMap((b) => conditions.map((condition) => ({ condition, benchmark: b })));
}

/** The interaction tests (condition x model, x benchmark) with too few clusters for their model. */
function gateInteractions(
  results: Partial<AnalysisResults>,
  integrity: IntegrityResult,
  comparisonFacet: string,
): void {
  for (const i of results.hypotheses?.interactions ?? []) {
    if (!i.test) continue;
    const failure = scopeFailure(integrity, interactionScope(comparisonFacet, i.with));
    if (!failure) continue;
    i.notInterpretable = failure.reason;
    for (const check of failure.checks) check.downgraded.push(`interaction ${comparisonFacet} x ${i.with}`);
  }
}

/**
 * The failed findings on a scope's tests (too few clusters for its model, too few cases), or
 * null: those on every condition ("all"), or, given a condition, those on that condition too.
 */
function scopeFailure(
  integrity: IntegrityResult,
  key: string,
  condition?: string,
): { reason: string; checks: IntegrityCheckResult[] } | null {
  const on = (f: CellFinding) => f.condition === "all" || f.condition === condition;
  const hits = integrity.checks
    .map((check) => ({
      check,
      finding: check.cells.find((f) => f.status === "fail" && f.scope === key && on(f)),
    }))
    .filter((h) => h.finding !== undefined);
  if (hits.length === 0) return null;
  return { reason: hits[0].finding?.reason ?? "", checks: hits.map((h) => h.check) };
}

function downgrade(
  contrast: Contrast,
  integrity: IntegrityResult,
  cells: IntegrityCell[],
  label: string,
  testFailure: { reason: string; checks: IntegrityCheckResult[] } | null,
): void {
  // Two sides without a shared case have no verdict to downgrade.
  if (contrast.notComparable) return;
  const failure = failureOn(integrity, cells) ?? testFailure;
  if (!failure) return;
  contrast.verdict = `${NOT_INTERPRETABLE}: ${failure.reason}`;
  contrast.notInterpretable = failure.reason;
  if (failure.checks.some((c) => c.check === MIN_INFORMATION)) contrast.withheld = failure.reason;
  for (const check of failure.checks) check.downgraded.push(label);
}
