/**
 * Tables of the trial store and their migrations, written once with kysely's schema builder so
 * the same DDL runs on SQLite and PostgreSQL. Portable column types only:
 * - JSON as text (both dialects), parsed in the store;
 * - booleans as integer 0/1 (better-sqlite3 cannot bind booleans; PG keeps the same code path);
 * - timestamps as ISO-8601 UTC text (sorts lexically);
 * - token counts as bigint (int8 on PG, which pg returns as text: the store parses it).
 * Add a migration for every change; never edit one that has shipped.
 */
import { type Generated, type Kysely, type Migration, type MigrationProvider, sql } from "kysely";
import { batchSubmissions } from "./migrations/0013-batch-submissions.js";
import { workerLease } from "./migrations/0014-worker-lease.js";
import { analyses } from "./migrations/0015-analyses.js";
import { runSpecDir } from "./migrations/0016-run-spec-dir.js";
import { runPlugins } from "./migrations/0017-run-plugins.js";
import { runItemOrder } from "./migrations/0018-run-item-order.js";
import { runImported } from "./migrations/0019-run-imported.js";
import { sequentialLooks } from "./migrations/0020-sequential-looks.js";

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
export interface RunItemsTable {
  run_id: string;
  benchmark: string;
  item_id: string;
  item: string;
  /** Migration 0018: the row's place in the order the run loaded its items and pools (null before). */
  position?: number | null;
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
  run_items: RunItemsTable;
  provider_batches: ProviderBatchesTable;
  batch_requests: BatchRequestsTable;
  run_budget: RunBudgetTable;
  budget_reservations: BudgetReservationsTable;
  batch_submissions: BatchSubmissionsTable;
  analyses: AnalysesTable;
  run_plugins: RunPluginsTable;
  sequential_looks: SequentialLooksTable;
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

// Migrations receive an untyped handle: they describe the database as it was at their time.
// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

const initial: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("runs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("study", "text", (c) => c.notNull())
      .addColumn("spec_hash", "text", (c) => c.notNull())
      .addColumn("manifest_hash", "text", (c) => c.notNull())
      .addColumn("spec", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("parallax_version", "text", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("trials")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("model_id", "text", (c) => c.notNull())
      .addColumn("benchmark_id", "text", (c) => c.notNull())
      .addColumn("item_id", "text", (c) => c.notNull())
      .addColumn("condition_hash", "text", (c) => c.notNull())
      .addColumn("condition", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending', 'finished', 'errored')`))
      .addColumn("executions", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("final_answer", "text")
      .addColumn("parsed_answer", "text")
      .addColumn("parse_status", "text")
      .addColumn("score", "double precision")
      .addColumn("scorer", "text")
      .addColumn("failure_bucket", "text")
      .addColumn("error_message", "text")
      .addColumn("input_tokens", "bigint")
      .addColumn("output_tokens", "bigint")
      .addColumn("cost_usd", "double precision")
      .addColumn("latency_ms", "double precision")
      .addColumn("dropped_params", "text")
      .addColumn("simulated", "integer")
      .addColumn("updated_at", "text")
      .execute();
    // Listing a run's trials (optionally by status) in id order, paging by id, counting by status.
    await db.schema.createIndex("trials_run_status_id").on("trials").columns(["run_id", "status", "id"]).execute();
    await db.schema.createIndex("trials_run_id").on("trials").columns(["run_id", "id"]).execute();

    await db.schema
      .createTable("calls")
      .addColumn("trial_id", "text", (c) => c.notNull().references("trials.id"))
      .addColumn("execution", "integer", (c) => c.notNull())
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("messages", "text", (c) => c.notNull())
      .addColumn("params_used", "text", (c) => c.notNull())
      .addColumn("dropped_params", "text", (c) => c.notNull())
      .addColumn("response_text", "text")
      .addColumn("tool_calls", "text")
      .addColumn("finish_reason", "text")
      .addColumn("input_tokens", "bigint", (c) => c.notNull())
      .addColumn("output_tokens", "bigint", (c) => c.notNull())
      .addColumn("cost_usd", "double precision", (c) => c.notNull())
      .addColumn("latency_ms", "double precision", (c) => c.notNull())
      .addColumn("cached", "integer", (c) => c.notNull())
      .addColumn("error_bucket", "text")
      .addColumn("error_message", "text")
      .addColumn("started_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("calls_pk", ["trial_id", "execution", "seq"])
      .execute();

    await db.schema
      .createTable("cache")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
  },
  async down(db: AnyDb) {
    for (const table of ["cache", "calls", "trials", "runs"]) await db.schema.dropTable(table).ifExists().execute();
  },
};

/** Nullable audit columns on calls (issue #4); older rows read them as "not audited". */
const callAudit: Migration = {
  async up(db: AnyDb) {
    // One column per statement: SQLite's ALTER TABLE adds a single column.
    await db.schema.alterTable("calls").addColumn("audit_options_reached", "integer").execute();
    await db.schema.alterTable("calls").addColumn("audit_system_prompt_retained", "double precision").execute();
    await db.schema.alterTable("calls").addColumn("audit_safety_reached", "integer").execute();
    await db.schema.alterTable("calls").addColumn("audit_persona_leak", "text").execute();
    await db.schema.alterTable("calls").addColumn("note", "text").execute();
  },
  async down(db: AnyDb) {
    for (const column of [
      "note",
      "audit_persona_leak",
      "audit_safety_reached",
      "audit_system_prompt_retained",
      "audit_options_reached",
    ]) {
      await db.schema.alterTable("calls").dropColumn(column).execute();
    }
  },
};

/** Scores of stored trials by any scorer (issue #5), so scorers can be compared on the same responses. */
const scores: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("scores")
      .addColumn("trial_id", "text", (c) => c.notNull().references("trials.id"))
      .addColumn("scorer", "text", (c) => c.notNull())
      .addColumn("version", "text", (c) => c.notNull())
      .addColumn("parsed_answer", "text")
      .addColumn("parse_status", "text", (c) =>
        c.notNull().check(sql`parse_status in ('ok', 'failed', 'not_applicable')`),
      )
      .addColumn("score", "double precision")
      .addColumn("details", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("scores_pk", ["trial_id", "scorer", "version"])
      .execute();
    // Export by scorer: all scores of one scorer, joined to a page of trials.
    await db.schema.createIndex("scores_scorer_trial").on("scores").columns(["scorer", "trial_id"]).execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("scores").ifExists().execute();
  },
};

/**
 * What each trial was sent (issue #8 item 3): the rendered task, stored once per distinct task
 * (many trials share one: models x attempts) and referenced from the trial by hash.
 */
const trialTask: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("tasks")
      .addColumn("hash", "text", (c) => c.primaryKey())
      .addColumn("task", "text", (c) => c.notNull())
      .execute();
    await db.schema.alterTable("trials").addColumn("task_hash", "text").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("trials").dropColumn("task_hash").execute();
    await db.schema.dropTable("tasks").ifExists().execute();
  },
};

/**
 * Judge verdicts and blinding state (issue #8 item 4) in the store instead of loose JSON files:
 * the sealed mapping and the round's checks, the verdicts, the judge-call log, the blinding log.
 */
const judgements: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("blinding_rounds")
      .addColumn("run_id", "text", (c) => c.primaryKey().references("runs.id"))
      .addColumn("mapping", "text", (c) => c.notNull())
      .addColumn("sealed_sha256", "text", (c) => c.notNull())
      .addColumn("sealed_at", "text", (c) => c.notNull())
      .addColumn("entries", "integer", (c) => c.notNull())
      .addColumn("judge", "text")
      .addColumn("verdicts_sha256", "text")
      .addColumn("responses", "integer")
      .addColumn("guessing_check", "text")
      .addColumn("agreement", "text")
      .addColumn("unblinded_at", "text")
      .execute();
    await db.schema
      .createTable("judge_verdicts")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("ord", "integer", (c) => c.notNull())
      .addColumn("uuid", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('primary', 'validation')`))
      .addColumn("judge", "text", (c) => c.notNull())
      .addColumn("rubric", "text", (c) => c.notNull())
      .addColumn("benchmark", "text", (c) => c.notNull())
      .addColumn("ok", "integer", (c) => c.notNull())
      .addColumn("label", "text")
      .addColumn("confidence", "double precision")
      .addColumn("justification", "text")
      .addColumn("outcome", "double precision")
      .addColumn("error", "text")
      .addColumn("trial_id", "text", (c) => c.references("trials.id"))
      .addPrimaryKeyConstraint("judge_verdicts_pk", ["run_id", "ord"])
      .execute();
    for (const table of ["judge_calls", "blinding_log"]) {
      let builder = db.schema
        .createTable(table)
        .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
        .addColumn("seq", "integer", (c) => c.notNull());
      if (table === "blinding_log") {
        builder = builder.addColumn("at", "text", (c) => c.notNull()).addColumn("event", "text", (c) => c.notNull());
      }
      await builder
        .addColumn("record", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ["run_id", "seq"])
        .execute();
    }
  },
  async down(db: AnyDb) {
    for (const table of ["blinding_log", "judge_calls", "judge_verdicts", "blinding_rounds"]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};

/** Per-call checks as one JSON column (issue #8 item 5): a new auditor needs no new column. */
const callChecks: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("calls").addColumn("checks", "text").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("calls").dropColumn("checks").execute();
  },
};

/**
 * Indexes for browsing (issue 17, the viewer): a run's (model, benchmark, condition) groups and
 * the trials of one item. Written only when trials are planned (completing a trial changes none
 * of their columns), so `run`'s completion writes are unaffected.
 */
const viewerIndexes: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createIndex("trials_run_group")
      .on("trials")
      .columns(["run_id", "model_id", "benchmark_id", "condition_hash"])
      .execute();
    // Ending in id: an item's trials come in id order (keyset paging) without a sort.
    await db.schema
      .createIndex("trials_run_item")
      .on("trials")
      .columns(["run_id", "benchmark_id", "item_id", "id"])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropIndex("trials_run_item").ifExists().execute();
    await db.schema.dropIndex("trials_run_group").ifExists().execute();
  },
};

/**
 * Scale-out (issue 16): a lease per trial (its worker and expiry), the run's workers, and the
 * run's items in the store, so workers on other machines can execute its trials.
 */
const workerLeases: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("trials").addColumn("lease_owner", "text").execute();
    await db.schema.alterTable("trials").addColumn("lease_expires_at", "bigint").execute();
    await db.schema
      .createTable("workers")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("host", "text", (c) => c.notNull())
      .addColumn("pid", "integer", (c) => c.notNull())
      .addColumn("parallax_version", "text", (c) => c.notNull())
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("heartbeat_at", "bigint", (c) => c.notNull())
      .addColumn("in_flight", "integer", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("run_items")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("benchmark", "text", (c) => c.notNull())
      .addColumn("item_id", "text", (c) => c.notNull())
      .addColumn("item", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("run_items_pk", ["run_id", "benchmark", "item_id"])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("run_items").ifExists().execute();
    await db.schema.dropTable("workers").ifExists().execute();
    await db.schema.alterTable("trials").dropColumn("lease_expires_at").execute();
    await db.schema.alterTable("trials").dropColumn("lease_owner").execute();
  },
};

/** Prompt-cache token counts per call (GAIA App. M), where the provider reports them; null elsewhere. */
const callCacheTokens: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("calls").addColumn("cache_read_tokens", "integer").execute();
    await db.schema.alterTable("calls").addColumn("cache_write_tokens", "integer").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("calls").dropColumn("cache_read_tokens").execute();
    await db.schema.alterTable("calls").dropColumn("cache_write_tokens").execute();
  },
};

/** Which weights answered each trial (issue 13): a GGUF's SHA-256 or the provider's model version. */
const trialModelRevision: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("trials").addColumn("model_revision", "text").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("trials").dropColumn("model_revision").execute();
  },
};

/**
 * Batch mode (issue 16): every submitted provider batch, recorded before it is polled, and each
 * request's outcome, stored once when its batch ends, so a resumed run polls instead of
 * resubmitting and never reads a result twice.
 */
const providerBatches: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("provider_batches")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("batch_id", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("model_id", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("provider_status", "text")
      .addColumn("requests", "integer", (c) => c.notNull())
      .addColumn("submitted_at", "text", (c) => c.notNull())
      .addColumn("ended_at", "text")
      .addPrimaryKeyConstraint("provider_batches_pk", ["run_id", "batch_id"])
      .execute();
    await db.schema
      .createTable("batch_requests")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("custom_id", "text", (c) => c.notNull())
      .addColumn("batch_id", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("submissions", "integer", (c) => c.notNull())
      .addColumn("result", "text")
      .addColumn("error", "text")
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("batch_requests_pk", ["run_id", "custom_id"])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("batch_requests").ifExists().execute();
    await db.schema.dropTable("provider_batches").ifExists().execute();
  },
};

/**
 * The shared budget (issue 16): one counter row per run, charged before a call is made
 * (reserve, then settle with the real cost), and the reservations of calls in flight.
 */
const runBudget: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("run_budget")
      .addColumn("run_id", "text", (c) => c.primaryKey().references("runs.id"))
      .addColumn("used_calls", "bigint", (c) => c.notNull())
      .addColumn("used_cost_usd", "double precision", (c) => c.notNull())
      .addColumn("reserved_calls", "bigint", (c) => c.notNull())
      .addColumn("reserved_cost_usd", "double precision", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("budget_reservations")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("holder", "text", (c) => c.notNull())
      .addColumn("calls", "integer", (c) => c.notNull())
      .addColumn("cost_usd", "double precision", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("budget_reservations_holder").on("budget_reservations").column("holder").execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("budget_reservations").ifExists().execute();
    await db.schema.dropTable("run_budget").ifExists().execute();
  },
};

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
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
