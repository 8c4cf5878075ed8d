/**
 * Tables of the trial store and the list of its migrations, each one file in migrations/ written
 * once with kysely's schema builder so the same DDL runs on SQLite and PostgreSQL. Portable
 * column types only:
 * - JSON as text (both dialects), parsed in the store;
 * - booleans as integer 0/1 (better-sqlite3 cannot bind booleans; PG keeps the same code path);
 * - timestamps as ISO-8601 UTC text (sorts lexically);
 * - token counts as bigint (int8 on PG, which pg returns as text: the store parses it).
 * Add a migration for every change (a new file in migrations/, one import and one entry below);
 * never edit or rename one that has shipped: a store records the names it has applied.
 */
import type { Generated, Migration, MigrationProvider } from "kysely";
import { initial } from "./migrations/0001-initial.js";
import { callAudit } from "./migrations/0002-call-audit.js";
import { scores } from "./migrations/0003-scores.js";
import { trialTask } from "./migrations/0004-trial-task.js";
import { judgements } from "./migrations/0005-judgements.js";
import { callChecks } from "./migrations/0006-call-checks.js";
import { viewerIndexes } from "./migrations/0007-viewer-indexes.js";
import { workerLeases } from "./migrations/0008-worker-leases.js";
import { callCacheTokens } from "./migrations/0009-call-cache-tokens.js";
import { trialModelRevision } from "./migrations/0010-trial-model-revision.js";
import { providerBatches } from "./migrations/0011-provider-batches.js";
import { runBudget } from "./migrations/0012-run-budget.js";
import { batchSubmissions } from "./migrations/0013-batch-submissions.js";
import { workerLease } from "./migrations/0014-worker-lease.js";
import { analyses } from "./migrations/0015-analyses.js";
import { runSpecDir } from "./migrations/0016-run-spec-dir.js";
import { runPlugins } from "./migrations/0017-run-plugins.js";
import { runItemOrder } from "./migrations/0018-run-item-order.js";
import { runImported } from "./migrations/0019-run-imported.js";
import { sequentialLooks } from "./migrations/0020-sequential-looks.js";
import { sharedTexts } from "./migrations/0021-shared-texts.js";
import { trialSearch } from "./migrations/0022-trial-search.js";
import { searchQueue } from "./migrations/0023-search-queue.js";
import { runItemBatches } from "./migrations/0024-run-item-batches.js";

export interface RunsTable {
  id: string;
  study: string;
  spec_hash: string;
  manifest_hash: string;
  spec: string;
  created_at: string;
  parallax_version: string;
  /** Migration 0016: the absolute folder of the spec the run was recorded from (null before it). */
  spec_dir?: string | null;
  /** Migration 0019: an imported run's source as JSON (RunRecord.imported); null for an executed run. */
  imported?: string | null;
}

export interface TrialsTable {
  id: string;
  run_id: string;
  model_id: string;
  benchmark_id: string;
  item_id: string;
  condition_hash: string;
  condition: string;
  attempt: number;
  status: string;
  executions: Generated<number>;
  final_answer: string | null;
  parsed_answer: string | null;
  parse_status: string | null;
  score: number | null;
  scorer: string | null;
  failure_bucket: string | null;
  error_message: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  latency_ms: number | null;
  dropped_params: string | null;
  simulated: number | null;
  model_revision?: string | null;
  updated_at: string | null;
  /** Migration 0004: hash of the task the trial was sent (tasks.hash); null before. */
  task_hash: string | null;
  /** Migration 0008: the worker that holds the trial's lease, and when it expires (ms since the epoch, database clock). */
  lease_owner: string | null;
  lease_expires_at: number | string | null;
}

export interface CallsTable {
  trial_id: string;
  execution: number;
  seq: number;
  role: string;
  messages: string;
  params_used: string;
  dropped_params: string;
  response_text: string | null;
  tool_calls: string | null;
  finish_reason: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_ms: number;
  cached: number;
  error_bucket: string | null;
  error_message: string | null;
  started_at: string;
  /** Migration 0002: the propagation audit (null: not applicable, or stored before 0002). */
  audit_options_reached: number | null;
  audit_system_prompt_retained: number | null;
  audit_safety_reached: number | null;
  /** JSON {adversarial: [...], contextual: [...]} for map calls of persona items. */
  audit_persona_leak: string | null;
  /** JSON note the scaffold attached to the call. */
  note: string | null;
  /** Migration 0009: prompt-cache tokens read and written (null: not reported, or stored before it). */
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
  /**
   * Migration "call_checks": the per-call checks as JSON {name: value} (contracts CallChecks).
   * Written instead of the four audit_* columns, which stay readable for calls stored before it.
   */
  checks: string | null;
}

export interface CacheTable {
  key: string;
  value: string;
  created_at: string;
}

/** Migration 0003: one row per (trial, scorer, version); re-scoring with the same version replaces it. */
export interface ScoresTable {
  trial_id: string;
  scorer: string;
  version: string;
  parsed_answer: string | null;
  parse_status: string;
  score: number | null;
  /** JSON object of scorer-specific evidence, or null. */
  details: string | null;
  created_at: string;
}

/** Migration 0004: each distinct rendered task once, by the SHA-256 of its canonical JSON. */
export interface TasksTable {
  hash: string;
  /** Since migration 0021 the task's encoded tree (`@...`, texts.ts), or its JSON when that would not round-trip. */
  task: string;
}

/** Migration 0005: the run's blinding round (one per run; a new round replaces it). */
export interface BlindingRoundsTable {
  run_id: string;
  mapping: string;
  sealed_sha256: string;
  sealed_at: string;
  entries: number;
  judge: string | null;
  verdicts_sha256: string | null;
  responses: number | null;
  guessing_check: string | null;
  agreement: string | null;
  unblinded_at: string | null;
}

/** Migration 0005: judge verdicts by blinded UUID; trial_id is filled at unblinding. */
export interface JudgeVerdictsTable {
  run_id: string;
  ord: number;
  uuid: string;
  role: string;
  judge: string;
  rubric: string;
  benchmark: string;
  ok: number;
  label: string | null;
  confidence: number | null;
  justification: string | null;
  outcome: number | null;
  error: string | null;
  trial_id: string | null;
}

/** Migration 0005: every judge call of the round (JSON record), and the blinding log. */
export interface JudgeCallsTable {
  run_id: string;
  seq: number;
  record: string;
}

export interface BlindingLogTable {
  run_id: string;
  seq: number;
  at: string;
  event: string;
  record: string;
}

/** Migration 0008: the workers of a run (scale-out), for `status` and lease renewal. */
export interface WorkersTable {
  id: string;
  run_id: string;
  host: string;
  pid: number;
  parallax_version: string;
  started_at: string;
  /** ms since the epoch, database clock. */
  heartbeat_at: number | string;
  in_flight: number;
  state: string;
  /** Migration 0014: the worker's lease length (ms); null for a worker recorded before it. */
  lease_ms?: number | string | null;
}

/** Migration 0008: the run's items, so a worker on another machine needs only the store's URL. */
/** Migration 0024: a run's items and exemplar pools, in deflated batches (run-items.ts). */
export interface RunItemBatchesTable {
  run_id: string;
  /** The batch's place in the order the run saved its items and pools. */
  batch: number;
  /** The batch's items as a JSON array of [benchmark, id] pairs. */
  keys: string;
  /** The batch's items as JSON lines, deflated (raw DEFLATE). */
  items: Uint8Array;
}

/** Migration 0011: the provider batches submitted in batch mode (execution.mode: batch). */
export interface ProviderBatchesTable {
  run_id: string;
  batch_id: string;
  provider: string;
  model_id: string;
  /** submitted | ended */
  status: string;
  provider_status: string | null;
  requests: number;
  submitted_at: string;
  ended_at: string | null;
}

/** Migration 0011: each batched request by custom id: its latest batch, and its outcome once read. */
export interface BatchRequestsTable {
  run_id: string;
  custom_id: string;
  batch_id: string;
  /** submitted | done | failed | unfinished */
  state: string;
  submissions: number;
  result: string | null;
  error: string | null;
  updated_at: string;
  /** Migration 0013: the submission (batch_submissions.token) the request last went out in. */
  token: string | null;
}

/** Migration 0012: the run's shared budget counter (issue 16): spent, and reserved by calls in flight. */
export interface RunBudgetTable {
  run_id: string;
  used_calls: number | string;
  used_cost_usd: number;
  reserved_calls: number | string;
  reserved_cost_usd: number;
}

/** Migration 0012: one row per call in flight that holds a reservation; expires unless its holder renews it. */
export interface BudgetReservationsTable {
  id: string;
  run_id: string;
  holder: string;
  calls: number;
  cost_usd: number;
  /** ms since the epoch, database clock. */
  expires_at: number | string;
}

/** Migration 0013: a batch submission, recorded before the provider is called (state submitting, then submitted or absent). */
export interface BatchSubmissionsTable {
  run_id: string;
  token: string;
  provider: string;
  model_id: string;
  /** The provider's model name the batch is for. */
  model: string;
  /** submitting | submitted | absent */
  state: string;
  batch_id: string | null;
  requests: number;
  created_at: string;
}

export interface StoreDatabase {
  runs: RunsTable;
  trials: TrialsTable;
  calls: CallsTable;
  cache: CacheTable;
  scores: ScoresTable;
  tasks: TasksTable;
  blinding_rounds: BlindingRoundsTable;
  judge_verdicts: JudgeVerdictsTable;
  judge_calls: JudgeCallsTable;
  blinding_log: BlindingLogTable;
  workers: WorkersTable;
  run_item_batches: RunItemBatchesTable;
  provider_batches: ProviderBatchesTable;
  batch_requests: BatchRequestsTable;
  run_budget: RunBudgetTable;
  budget_reservations: BudgetReservationsTable;
  batch_submissions: BatchSubmissionsTable;
  analyses: AnalysesTable;
  run_plugins: RunPluginsTable;
  sequential_looks: SequentialLooksTable;
  texts: TextsTable;
}

/**
 * Migration 0021: texts many rows share, once each by key (texts.ts); calls.messages, params_used,
 * note and tasks.task hold `@key` references to them.
 */
export interface TextsTable {
  key: string;
  text: string;
}

/** Migration 0019: one analysed look of a sequential run (its record as JSON). */
export interface SequentialLooksTable {
  run_id: string;
  look: number;
  record: string;
  recorded_at: string;
}

/** Migration 0017: a plugin module a run loaded: where from, its SHA-256 and its content. */
export interface RunPluginsTable {
  run_id: string;
  position: number;
  specifier: string;
  file: string;
  sha256: string;
  content: string;
}

/** Migration 0015: a run's analysis record (the JSON `parallax analyze` writes as analysis.json). */
export interface AnalysesTable {
  run_id: string;
  record: string;
  written_at: string;
}

/** All migrations, applied in name order. */
export const migrations: Record<string, Migration> = {
  "0001_initial": initial,
  "0002_call_audit": callAudit,
  "0003_scores": scores,
  "0004_trial_task": trialTask,
  "0005_judgements": judgements,
  "0006_call_checks": callChecks,
  "0007_viewer_indexes": viewerIndexes,
  "0008_worker_leases": workerLeases,
  "0009_call_cache_tokens": callCacheTokens,
  "0010_trial_model_revision": trialModelRevision,
  "0011_provider_batches": providerBatches,
  "0012_run_budget": runBudget,
  "0013_batch_submissions": batchSubmissions,
  "0014_worker_lease": workerLease,
  "0015_analyses": analyses,
  "0016_run_spec_dir": runSpecDir,
  "0017_run_plugins": runPlugins,
  "0018_run_item_order": runItemOrder,
  "0019_run_imported": runImported,
  "0020_sequential_looks": sequentialLooks,
  "0021_shared_texts": sharedTexts,
  "0022_trial_search": trialSearch,
  "0023_search_queue": searchQueue,
  "0024_run_item_batches": runItemBatches,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
