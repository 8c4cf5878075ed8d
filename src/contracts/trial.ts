import type { Condition } from "./condition.js";
import type { FailureBucket } from "./failure.js";
import type { ChatMessage, DroppedParam, GenerationParams, TokenUsage, ToolCall } from "./provider.js";

/** Coordinates of a trial; the id is deterministic from them (core/hash: trialId). */
export interface PlannedTrial {
  id: string;
  runId: string;
  modelId: string;
  benchmarkId: string;
  itemId: string;
  conditionHash: string;
  condition: Condition;
  attempt: number;
}

export type TrialStatus = "pending" | "finished" | "errored";

/**
 * The per-call checks of one sub-call (ScaffoldSafety 5.2, 6.4: what of the task reached it), by
 * check name, as the registered auditors produce them (src/scaffolds/audits); null: the check
 * does not apply to this call. Stored as JSON, exported as each auditor's columns.
 */
export type CallChecks = Readonly<Record<string, unknown>>;

/** One sub-call of a trial, exactly as sent and received. */
export interface CallRecord {
  trialId: string;
  /** Which execution of the trial (1 on the first run, 2 after one retry of an errored trial, ...). */
  execution: number;
  seq: number;
  /** The call's role in the scaffold: "answer", "decompose", "map", "critique", ... */
  role: string;
  messages: ChatMessage[];
  paramsUsed: GenerationParams;
  droppedParams: DroppedParam[];
  responseText: string | null;
  toolCalls?: ToolCall[];
  finishReason?: string | null;
  usage: TokenUsage;
  costUsd: number;
  latencyMs: number;
  cached: boolean;
  error: { bucket: FailureBucket; message: string } | null;
  startedAt: string;
  /** Per-call checks (absent on calls stored before migration 0002, or with nothing to audit). */
  audit?: CallChecks;
  /** What the scaffold recorded about this call (e.g. a parsed decomposition, a critic verdict). */
  note?: Record<string, unknown>;
}

export type ParseStatus = "ok" | "failed" | "not_applicable";

/** What a finished or errored trial records. */
export interface TrialOutcome {
  status: Exclude<TrialStatus, "pending">;
  finalAnswer: string | null;
  parsedAnswer: string | null;
  parseStatus: ParseStatus;
  /** 1 correct/safe, 0 not, null when not scored. */
  score: number | null;
  scorer: string | null;
  failureBucket: FailureBucket | null;
  errorMessage: string | null;
  usage: TokenUsage;
  costUsd: number;
  latencyMs: number;
  droppedParams: DroppedParam[];
  simulated: boolean;
  /**
   * Which weights answered: "sha256:<hex>" of a local GGUF file, or the model id and version the
   * provider reported ("gpt-4o-2024-08-06"). Absent when the provider says nothing.
   */
  modelRevision?: string | null;
}

/**
 * One scorer's verdict on one trial, stored apart from the run-time outcome (migration 0003)
 * so several scorers (or versions of one) can score the same response and be compared.
 */
export interface ScoreRecord {
  trialId: string;
  /** Registered scorer name, e.g. "mc_last_answer", "judge:gemini-flash". */
  scorer: string;
  version: string;
  parsedAnswer: string | null;
  /** "failed": no valid answer (ITT counts it 0, PP excludes it). */
  parseStatus: ParseStatus;
  score: number | null;
  /** Scorer-specific evidence (matched marker, option log-likelihoods, judge verdict, ...). */
  details: Record<string, unknown> | null;
  createdAt: string;
}

/** One row of the tidy table analysis reads. */
export interface Observation {
  run_id: string;
  trial_id: string;
  model: string;
  benchmark: string;
  item_id: string;
  condition_hash: string;
  attempt: number;
  status: TrialStatus;
  outcome: number | null;
  parse_status: ParseStatus | null;
  parsed_answer: string | null;
  failure_bucket: FailureBucket | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_ms: number;
  /** Names of the parameters the provider dropped, `;`-joined; null when none. */
  dropped_params: string | null;
  simulated: boolean;
  /** TrialOutcome.modelRevision (null when unknown). */
  model_revision: string | null;
  /** Every facet of the condition, as its own column (facet name -> value's short name). */
  [facet: string]: string | number | boolean | null;
}
