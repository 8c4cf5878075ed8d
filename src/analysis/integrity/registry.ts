/**
 * The integrity-check registry: each measurement-integrity check (parse failures, nothing
 * measured, errored share, propagation, ...) is one file in this folder that registers itself,
 * like the analyses do. `analyze` runs every check on the cells of the analysed rows (a cell:
 * one condition of the comparison facet in one benchmark) before any verdict is stated; a
 * verdict that uses a cell with a failed finding is downgraded to "not interpretable". A new
 * study type (the grid, the audit) adds its checks here (no-op rate, parseability).
 */
import type { IntegrityPlan } from "../../contracts/analysis.js";
import type { FailureBucket } from "../../contracts/failure.js";
import type { AgreementStatus, BlindingStatus } from "../core/methodology.js";
import type { AnalysisRow } from "../core/table.js";
import type { AuditFacts } from "../core/audit-facts.js";

/** The judges' agreement and blinding, as the study directory records them (absent: unknown). */
export interface JudgeFacts {
  blinding: BlindingStatus;
  agreement: AgreementStatus;
}

/** One item as a trial showed it: where its gold option stood among the options shown. */
export interface FormattedGold {
  benchmark: string;
  item: string;
  /** The gold option's 0-based position among the options as shown (after any reorder; not its letter). */
  position: number;
  /** How many options were shown. */
  options: number;
}

/**
 * Facts of a study directory beyond the analysis rows that some checks read: where each trial
 * showed its gold option (the stored tasks and the stored items) and what scored each trial,
 * or why they are unknown.
 */
export interface IntegrityFacts {
  /** Trial id -> the position of its gold option as shown. */
  golds?: { trials: ReadonlyMap<string, FormattedGold> } | { unavailable: string };
  scoring?: ScoringFacts | { unavailable: string };
  /** Trial id -> failure bucket, for every errored trial of the run. */
  failureBuckets?: ReadonlyMap<string, FailureBucket>;
  /** A perturbation study's audit facts (the F1 no-op audit over stored bytes, the benchmarks' meta). */
  audit?: AuditFacts | { unavailable: string };
}

/** What scored each trial: the benchmarks' loaders, and each trial's run-time scorer and format. */
export interface ScoringFacts {
  /** Benchmark id -> dataset loader name. */
  loaders: Readonly<Record<string, string>>;
  /** Trial id -> the scorer of its run-time outcome and the format its task was shown in. */
  trials: ReadonlyMap<string, { scorer: string | null; format: string | null }>;
}

export type CheckStatus = "pass" | "warn" | "fail" | "not available";

/** One condition in one benchmark: the unit a verdict reads. */
export interface IntegrityCell {
  condition: string;
  benchmark: string;
}

/** A cell the check flags, and why (the reason is what a downgraded verdict shows). */
export interface CellFinding extends IntegrityCell {
  status: "warn" | "fail";
  reason: string;
  /**
   * Set when the finding concerns the tests of one contrast scope ("pooled", a benchmark, "model
   * NAME", an interaction test "scaffold x model"), not the cell's rows: it downgrades that scope's
   * verdicts only; those of every condition when `condition` is "all", else that condition's.
   */
  scope?: string;
}

/** The failed findings a verdict reads: the first one's reason, and every check that failed it. */
export interface GateFailure {
  reason: string;
  /** The names of the checks whose failed findings it reads, in check order. */
  checks: string[];
}

/**
 * What an analysis's `gate` hook reads (registry.ts): the failed findings on the cells and tests
 * its verdicts use, and where it records each verdict it downgrades.
 */
export interface VerdictGate {
  reference: string;
  comparisonFacet?: string;
  /** The failure on these conditions' cells in one benchmark, or in every benchmark (null); null: none. */
  cellFailure(benchmark: string | null, conditions: readonly string[]): GateFailure | null;
  /** The failure on a scope's tests: findings on every condition ("all"), or given one, on it too. */
  scopeFailure(scope: string, condition?: string): GateFailure | null;
  /** Records that the failure's checks downgraded this verdict ("flips all cot"). */
  downgraded(failure: GateFailure, verdict: string): void;
}

/** What a check reads: the analysed rows grouped by cell, and the plan's thresholds. */
export interface IntegrityContext {
  rows: readonly AnalysisRow[];
  cells: ReadonlyMap<string, { cell: IntegrityCell; rows: AnalysisRow[] }>;
  reference: string;
  comparisonFacet: string;
  thresholds: IntegrityPlan;
  /** The plan's interaction tests (the other variable of each block), whose clusters few_clusters checks. */
  interactions?: readonly string[];
  judges?: JudgeFacts;
  facts: IntegrityFacts;
}

export interface CheckOutcome {
  /** "not available": the table lacks what the check needs (never a pass). */
  status?: "not available";
  /** The threshold as read ("> 20% of a cell"). */
  threshold: string;
  detail: string;
  findings: CellFinding[];
}

export interface IntegrityCheck {
  name: string;
  title: string;
  run(context: IntegrityContext): CheckOutcome;
}

const registered: IntegrityCheck[] = [];

export function registerIntegrityCheck(check: IntegrityCheck): void {
  if (registered.some((c) => c.name === check.name))
    throw new Error(`integrity check '${check.name}' is registered twice`);
  registered.push(check);
}

export function integrityChecks(): readonly IntegrityCheck[] {
  return registered;
}

export function cellKey(cell: IntegrityCell): string {
  return `${cell.condition}\u0000${cell.benchmark}`;
}

/** Share as a percentage with no decimals ("45%"). */
export function share(value: number): string {
  return `${Math.round(value * 100)}%`;
}
