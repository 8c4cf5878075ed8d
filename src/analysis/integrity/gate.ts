/**
 * The gate: runs every registered check on the cells of the analysed rows, then has each
 * registered analysis with verdicts (its `gate` hook, registry.ts) downgrade those whose cells or
 * tests carry a failed finding to "not interpretable: <reason>", recording which verdicts each
 * check downgraded. It names no analysis's result.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { type AnalysisResults, registeredAnalyses } from "../core/registry.js";
import type { AnalysisRow } from "../core/table.js";
import "./index.js";
import { type PlantedFailure, plantedFailures } from "./planted.js";
import {
  type CellFinding,
  type CheckStatus,
  cellKey,
  type GateFailure,
  type IntegrityCell,
  integrityChecks,
  type IntegrityFacts,
  type JudgeFacts,
  type VerdictGate,
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

/** What the integrity checks run on: the rows, the plan, the compared facet and its reference. */
export interface IntegrityInput {
  rows: readonly AnalysisRow[];
  plan: AnalysisPlan;
  comparisonFacet: string;
  reference: string;
  /** The judges' agreement and blinding, when the study was judged. */
  judges?: JudgeFacts;
  /** What the checks read from the study directory (no-op audit, loader metadata, gold letters). */
  facts?: IntegrityFacts;
}

export function runIntegrityChecks(input: IntegrityInput): IntegrityResult {
  const { rows, plan, comparisonFacet, reference, judges, facts = {} } = input;
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
 * Findings on the tests of scopes no analysis computed (a study whose kinds leave the contrasts
 * out) are dropped: a check left with none of its scopes is not available.
 */
function keepComputedScopes(
  results: Partial<AnalysisResults>,
  integrity: IntegrityResult,
  comparisonFacet: string | undefined,
): void {
  const computed = new Set<string>();
  for (const analysis of registeredAnalyses()) {
    const result = analysis.result && results[analysis.result];
    if (analysis.testedScopes && result)
      for (const scope of analysis.testedScopes(result, comparisonFacet)) computed.add(scope);
  }
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

/**
 * Downgrades the verdicts of `results` that use a failed cell or test, in place: each registered
 * analysis with a `gate` hook downgrades its own, in registration order.
 */
export function gateVerdicts(
  results: Partial<AnalysisResults>,
  integrity: IntegrityResult,
  reference: string,
  comparisonFacet?: string,
): void {
  keepComputedScopes(results, integrity, comparisonFacet);
  const gate = verdictGate(integrity, reference, comparisonFacet);
  for (const analysis of registeredAnalyses()) {
    const result = analysis.result && results[analysis.result];
    if (analysis.gate && result) analysis.gate(result, gate);
  }
}

/** The failed findings of the integrity result, as the analyses' gate hooks read them. */
function verdictGate(integrity: IntegrityResult, reference: string, comparisonFacet?: string): VerdictGate {
  const byName = new Map(integrity.checks.map((c) => [c.check, c]));
  const benchmarks = [...new Set(integrity.checks.flatMap((c) => c.cells.map((f) => f.benchmark)))];
  const first = (matches: (f: CellFinding) => boolean): GateFailure | null => {
    const hits = integrity.checks
      .map((check) => ({ check, finding: check.cells.find((f) => f.status === "fail" && matches(f)) }))
      .filter((h) => h.finding !== undefined);
    if (hits.length === 0) return null;
    return { reason: hits[0].finding?.reason ?? "", checks: hits.map((h) => h.check.check) };
  };
  return {
    reference,
    ...(comparisonFacet !== undefined ? { comparisonFacet } : {}),
    cellFailure(benchmark, conditions) {
      // The cells of these conditions in one benchmark, or in every benchmark a check names.
      const chosen = benchmark === null ? benchmarks : [benchmark];
      const keys = new Set(chosen.flatMap((b) => conditions.map((condition) => cellKey({ condition, benchmark: b }))));
      // A scope's finding (its tests, not its rows) is read by scopeFailure.
      return first((f) => f.scope === undefined && keys.has(cellKey(f)));
    },
    scopeFailure(scope, condition) {
      return first((f) => f.scope === scope && (f.condition === "all" || f.condition === condition));
    },
    downgraded(failure, verdict) {
      for (const name of failure.checks) byName.get(name)?.downgraded.push(verdict);
    },
  };
}
