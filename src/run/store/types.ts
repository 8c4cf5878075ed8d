/**
 * The trial store contract. One implementation (kysely) serves SQLite (embedded default,
 * one file per study directory) and PostgreSQL (scale-out). Crash safety rests on
 * `completeTrial` being one transaction: a trial's calls and its outcome land together or
 * not at all, and a finished trial is never overwritten.
 */
import type { ImportedFrom } from "../../contracts/provenance.js";
import type { StudySpec } from "../../contracts/spec.js";
import type { CallRecord, PlannedTrial, ScoreRecord, TrialOutcome, TrialStatus } from "../../contracts/trial.js";
import type { GenerateResult, RawBatchOutcome } from "../../contracts/provider.js";
import type { TaskInput } from "../../contracts/task.js";
import type { PageRequest, TrialGroup, TrialQuery } from "./browse.js";
import type { Item } from "../../contracts/item.js";
import type { ItemBatch } from "./run-items.js";

/** The fields of a stored task that `getTaskFacts` reads. */
export const TASK_FACT_FIELDS = ["benchmark", "itemId", "format", "options", "perturbation"] as const;

/**
 * A stored task's format, options and perturbation record (`getTaskFacts`). Not its condition: that
 * is its trials' condition, which `listTrialFacts` reads once per condition rather than once per task.
 */
export type TaskFacts = Pick<TaskInput, (typeof TASK_FACT_FIELDS)[number]>;

/** A stored call without its text (`listCallFactsOf`). */
export type CallFacts = Pick<
  CallRecord,
  "trialId" | "execution" | "seq" | "role" | "usage" | "error" | "audit" | "note"
>;

export interface RunRecord {
  id: string;
  study: string;
  specHash: string;
  manifestHash: string;
  spec: StudySpec;
  createdAt: string;
  parallaxVersion: string;
  /** The absolute folder of the spec it was recorded from: relative paths in the spec resolve against it. */
  specDir?: string;
  /** An imported run: the format and the provenance of the exports it read (absent for an executed run). */
  imported?: ImportedFrom;
}

export interface TrialRow extends PlannedTrial {
  status: TrialStatus;
  /** How many times the trial has been executed to completion or error (0 while pending). */
  executions: number;
  outcome: TrialOutcome | null;
  updatedAt: string | null;
  /** Hash of the task the trial was sent (store/task-record.ts); null before it ran, or stored before migration 0004. */
  taskHash: string | null;
}

/** A trial's rendered task as stored: canonical JSON and its SHA-256. */
export interface StoredTask {
  hash: string;
  json: string;
}

export interface TrialCompletion {
  trialId: string;
  outcome: TrialOutcome;
  calls: CallRecord[];
  /** The task the trial was sent, stored once per distinct task (absent when rendering failed). */
  task?: StoredTask;
  /**
   * The worker that claimed the trial under a lease (scale-out): the completion is written only
   * while that worker still holds the lease, so a worker that lost it never completes the trial.
   */
  leaseOwner?: string;
}

/** A judge's verdict on one blinded response (keyed by its UUID; linked to its trial only at unblinding). */
export interface VerdictRecord {
  uuid: string;
  benchmark: string;
  rubric: string;
  judge: string;
  role: "primary" | "validation";
  ok: boolean;
  label: string | null;
  confidence: number | null;
  justification: string | null;
  outcome: number | null;
  error: string | null;
}

/** The run's blinding round: the sealed mapping and, once judged, the verdicts' hash and checks. */
export interface BlindingRound {
  /** The sealed mapping's text (UUID -> trial); opens only with `sealedSha256`. */
  mapping: string;
  sealedSha256: string;
  sealedAt: string;
  entries: number;
  /** Set when judging finished. */
  judged: {
    judge: string;
    verdictsSha256: string;
    responses: number;
    /** GuessingCheck JSON, or null when not applicable. */
    guessingCheck: unknown;
    /** {per_benchmark, skipped} JSON. */
    agreement: unknown;
  } | null;
  unblindedAt: string | null;
}

/** Judge verdicts and blinding state (store migration 0005); one blinding round per run. */
export interface JudgementStore {
  /** Starts a round with its sealed mapping, replacing any earlier round of the run (its verdicts and calls). */
  sealBlindingRound(
    runId: string,
    round: Pick<BlindingRound, "mapping" | "sealedSha256" | "sealedAt" | "entries">,
  ): Promise<void>;
  /** Logs one judge call (verdict or guess) of the current round; `seq` orders the log. */
  recordJudgeCall(runId: string, seq: number, record: Record<string, unknown>): Promise<void>;
  /** Stores the round's verdicts, in order, in one transaction. */
  saveVerdicts(runId: string, verdicts: readonly VerdictRecord[]): Promise<void>;
  /** Records the end of judging: the verdicts' hash and the agreement and guessing checks. */
  finishBlindingRound(runId: string, judged: NonNullable<BlindingRound["judged"]>): Promise<void>;
  /** Links verdicts to their trials (by UUID) and stamps the round unblinded, in one transaction. */
  unblindRound(runId: string, at: string, trialOfUuid: ReadonlyMap<string, string>): Promise<void>;
  appendBlindingLog(runId: string, event: { event: string; at: string } & Record<string, unknown>): Promise<void>;
  getBlindingRound(runId: string): Promise<BlindingRound | undefined>;
  /** The round's verdicts in the order they were saved, with their trial once unblinded. */
  listVerdicts(runId: string): Promise<(VerdictRecord & { trialId: string | null })[]>;
  listBlindingLog(runId: string): Promise<({ event: string; at: string } & Record<string, unknown>)[]>;
  listJudgeCalls(runId: string): Promise<Record<string, unknown>[]>;
}

/** A worker of a run (scale-out), as `status` shows it. */
export interface WorkerRecord {
  id: string;
  runId: string;
  host: string;
  pid: number;
  parallaxVersion: string;
  startedAt: string;
  /** ms since the epoch (database clock). */
  heartbeatAt: number;
  inFlight: number;
  state: "running" | "stopped";
  /** Its lease length (ms); a running worker whose heartbeat is older is dead. Null before migration 0014. */
  leaseMs: number | null;
}

/** The leases of a run's unfinished trials. */
export interface LeaseSummary {
  /** Trials whose lease is still running. */
  held: number;
  /** Unfinished trials whose lease ran out (their worker died or stalled): claimable again. */
  expired: number;
  /** The earliest and latest expiry of the running leases (ms since the epoch). */
  nextExpiry: number | null;
  lastExpiry: number | null;
  /** The database clock now (ms since the epoch), to compare with. */
  now: number;
}

/**
 * Scale-out (migration 0008): trials claimed under leases by workers on any number of machines
 * (PostgreSQL: FOR UPDATE SKIP LOCKED), the workers' heartbeats, and the run's items in the store.
 */
export interface LeaseStore {
  /**
   * Claims up to `max` claimable trials for `worker` in id order: pending ones, errored ones
   * last updated before `erroredBefore` (errored during this pass wait for the next), with no
   * lease or an expired one. Each gets a lease of `leaseMs` on the database clock.
   */
  claimTrials(
    runId: string,
    worker: string,
    max: number,
    options: { leaseMs: number; erroredBefore: string },
  ): Promise<TrialRow[]>;
  /** Extends the leases `worker` still holds among `trialIds`; returns the ids it still holds. */
  renewLeases(worker: string, trialIds: readonly string[], leaseMs: number): Promise<string[]>;
  /** Gives back leases (trials abandoned unfinished), so another worker can claim them at once. */
  releaseLeases(worker: string, trialIds: readonly string[]): Promise<void>;
  registerWorker(worker: Omit<WorkerRecord, "heartbeatAt" | "state" | "inFlight">): Promise<void>;
  /** Unfinished trials under live leases of workers other than `worker`, and the earliest expiry. */
  othersLeases(runId: string, worker: string): Promise<{ held: number; nextExpiry: number | null; now: number }>;
  heartbeatWorker(workerId: string, inFlight: number): Promise<void>;
  stopWorker(workerId: string): Promise<void>;
  listWorkers(runId: string): Promise<WorkerRecord[]>;
  leaseSummary(runId: string): Promise<LeaseSummary>;
  /**
   * Stores the run's items (idempotent: an item already stored keeps its place), for workers that
   * have only the store's URL; after those already stored, so a long list can be stored in parts.
   */
  saveRunItems(runId: string, items: readonly Item[]): Promise<void>;
  /**
   * saveRunItems for items already encoded as stored batches (a set-aside exemplar pool): a batch
   * whose items are all new is stored as it is, without being decoded.
   */
  saveRunItemBatches(runId: string, batches: readonly ItemBatch[]): Promise<void>;
  /** The run's items and pools in the order they were saved (few-shot draws depend on a pool's order). */
  listRunItems(runId: string): Promise<Item[]>;
  /** Stores the plugin modules the run loaded (idempotent), in the spec's order. */
  saveRunPlugins(runId: string, plugins: readonly StoredPlugin[]): Promise<void>;
  listRunPlugins(runId: string): Promise<StoredPlugin[]>;
}

/** A plugin module a run loaded: its spec entry, the file it resolved to, its SHA-256 and content. */
export interface StoredPlugin {
  specifier: string;
  file: string;
  sha256: string;
  content: string;
}

/** A provider batch of a run (batch mode), as recorded before it was polled. */
export interface ProviderBatchRecord {
  batchId: string;
  provider: string;
  modelId: string;
  status: "submitted" | "ended";
  providerStatus: string | null;
  requests: number;
  submittedAt: string;
  endedAt: string | null;
}

/** A batched request by custom id: its latest batch, how often it was submitted, and its stored outcome. */
export interface BatchRequestRecord {
  customId: string;
  batchId: string;
  /** submitting: in a submission recorded before the provider was called, whose batch id is not known yet. */
  state: "submitting" | "submitted" | "done" | "failed" | "unfinished";
  submissions: number;
  /** The outcome as the batch reported it (response or error), read by the call that asked for it. */
  raw: RawBatchOutcome | null;
  /** The token of the submission the request last went out in (absent for batches recorded before 0013). */
  token?: string;
}

/**
 * A batch submission (migration 0013), recorded before the provider is called: `submitting`
 * until the provider's batch id is known (`submitted`), or until a lookup by its token showed
 * the provider never received it (`absent`).
 */
export interface BatchSubmissionRecord {
  token: string;
  provider: string;
  modelId: string;
  /** The provider's model name the batch is for. */
  model: string;
  state: "submitting" | "submitted" | "absent";
  batchId: string | null;
  requests: number;
  createdAt: string;
}

/** One request's outcome as its ended batch is settled. */
export type BatchRequestOutcome =
  | { customId: string; state: "done" | "failed"; raw: RawBatchOutcome }
  | { customId: string; state: "unfinished" };

/** Batch mode's record of provider batches (migration 0011; batch-queries.ts). */
export interface BatchStore {
  /**
   * Records a submitted batch and points each of its requests at it (submissions counted), in
   * one transaction, before the batch is polled.
   */
  recordBatch(
    runId: string,
    batch: Omit<ProviderBatchRecord, "status" | "providerStatus" | "endedAt" | "requests">,
    customIds: readonly string[],
  ): Promise<void>;
  /** The requests known by these custom ids (those found). */
  batchRequests(runId: string, customIds: readonly string[]): Promise<Map<string, BatchRequestRecord>>;
  /**
   * Stores the outcomes of an ended batch and marks it ended, in one transaction; its requests
   * it did not report become unfinished. A request resubmitted since in a later batch is left to
   * that batch.
   */
  settleBatch(
    runId: string,
    batchId: string,
    providerStatus: string,
    outcomes: readonly BatchRequestOutcome[],
  ): Promise<void>;
  listBatches(runId: string): Promise<ProviderBatchRecord[]>;
  /**
   * Records a submission before the provider is called (migration 0013): the submission in state
   * submitting and each of its requests pointed at its token (submissions counted), in one transaction.
   */
  recordSubmission(
    runId: string,
    submission: Omit<BatchSubmissionRecord, "state" | "batchId" | "requests">,
    customIds: readonly string[],
  ): Promise<void>;
  /**
   * The provider accepted submission `token` as batch `batch.batchId`: records the batch and points
   * the submission's requests at it, in one transaction (idempotent: workers may race to record it).
   */
  recordSubmitted(
    runId: string,
    token: string,
    batch: Omit<ProviderBatchRecord, "status" | "providerStatus" | "endedAt" | "requests">,
  ): Promise<void>;
  /**
   * A submission the provider never received (its token found no batch): marked absent, and its
   * requests that still wait for it become unfinished (their submission uncounted), to go out again.
   */
  abandonSubmission(runId: string, token: string): Promise<void>;
  batchSubmission(runId: string, token: string): Promise<BatchSubmissionRecord | undefined>;
  listSubmissions(runId: string): Promise<BatchSubmissionRecord[]>;
  /** Which of these provider batch ids this store has recorded (any run). */
  recordedBatchIds(batchIds: readonly string[]): Promise<Set<string>>;
}

/** Calls and their cost in USD. */
export interface Spend {
  calls: number;
  costUsd: number;
}

/** The spec's budget: `budget.max_calls` and `budget.max_cost_usd`. */
export interface BudgetLimits {
  maxCostUsd?: number;
  maxCalls?: number;
}

/** The run's shared budget counter: what was spent, and what calls in flight have reserved. */
export interface BudgetState {
  usedCalls: number;
  usedCostUsd: number;
  reservedCalls: number;
  reservedCostUsd: number;
}

/** One call's reservation: its id, the process holding it, and the calls and estimated cost reserved. */
export interface BudgetReservation extends Spend {
  id: string;
  holder: string;
}

/**
 * The shared budget (migration 0012, store/budget-queries.ts): charged before a call is made, so
 * any number of workers sharing a run stay within its limits together.
 */
export interface BudgetStore {
  /** The run's counter; created on first use from what the run's committed calls spent. */
  openBudget(runId: string): Promise<BudgetState>;
  /**
   * Atomically reserves `reservation` if used + reserved + it stays within every limit; the
   * counter after it, or undefined when refused. The reservation expires after `ttlMs` unless renewed.
   */
  reserveBudget(
    runId: string,
    reservation: BudgetReservation,
    limits: BudgetLimits,
    ttlMs: number,
  ): Promise<BudgetState | undefined>;
  /** Ends a reservation with what the call really spent (zero: released, nothing was paid). */
  settleBudget(runId: string, reservation: BudgetReservation, spent: Spend): Promise<BudgetState>;
  /** Extends the expiry of every reservation `holder` holds (it is alive). */
  renewBudgetReservations(holder: string, ttlMs: number): Promise<void>;
  /**
   * Charges expired reservations (with `all`, every reservation of the run: a single-process
   * store resuming after a crash) at their estimate, and returns what was charged.
   */
  expireBudgetReservations(runId: string, options?: { all?: boolean }): Promise<Spend>;
  budgetState(runId: string): Promise<BudgetState | undefined>;
}

export interface TrialStore extends JudgementStore, LeaseStore, BatchStore, BudgetStore {
  readonly dialect: "sqlite" | "postgres";
  /** Creates tables if missing; safe to call on every open. */
  migrate(): Promise<void>;
  /** Inserts the run, or leaves an existing run with the same id untouched. */
  saveRun(run: RunRecord): Promise<void>;
  /** The run with this id, or the most recently created one. */
  getRun(id?: string): Promise<RunRecord | undefined>;
  /** Stores (replacing) the run's analysis record, as JSON text. */
  saveAnalysis(runId: string, record: string): Promise<void>;
  /** The run's stored analysis record, or undefined (none, or a store from before migration 0015). */
  getAnalysis(runId: string): Promise<string | undefined>;
  /** Records an analysed look of a sequential run (JSON); a look already recorded is kept as it was. */
  saveSequentialLook(runId: string, look: number, record: string): Promise<void>;
  /** The run's recorded looks in order (none for a store from before migration 0019). */
  listSequentialLooks(runId: string): Promise<{ look: number; record: string }[]>;
  /** Inserts trials that are not there yet (by id); returns how many were new. Batches internally. */
  addPlannedTrials(trials: PlannedTrial[]): Promise<number>;
  /**
   * Once a run's writes end (SQLite): indexes the trials still queued for search and refreshes the
   * query planner's statistics (PostgreSQL's autovacuum keeps its own; it has no search index).
   */
  finishWrites(): Promise<void>;
  /** Of the trials with these ids, the unfinished ones (pending or errored), ordered by id. */
  unfinishedTrialsAmong(runId: string, ids: readonly string[]): Promise<TrialRow[]>;
  /** The stored trials with these ids, whatever their status, ordered by id. */
  trialsAmong(runId: string, ids: readonly string[]): Promise<TrialRow[]>;
  /** Trials ordered by id; `afterId` and `limit` page through large runs with flat memory. */
  listTrials(runId: string, filter?: { status?: TrialStatus[]; limit?: number; afterId?: string }): Promise<TrialRow[]>;
  countByStatus(runId: string): Promise<Record<TrialStatus, number>>;
  /** Whether any trial of the run has a response from a simulated respondent. */
  hasSimulatedTrials(runId: string): Promise<boolean>;
  /** A keyset page of the trials matching `query` (filters and search in SQL), in id order (store/browse.ts). */
  browseTrials(runId: string, query: TrialQuery, page: PageRequest): Promise<{ trials: TrialRow[]; more: boolean }>;
  /** The run's distinct (model, benchmark, condition) groups with their trial counts. */
  trialGroups(runId: string): Promise<TrialGroup[]>;
  /** What the run has spent so far: every stored call of every execution, and its cost. */
  spent(runId: string): Promise<{ calls: number; costUsd: number }>;
  /**
   * In one transaction: stores the calls of this execution and the outcome, sets status and
   * increments executions. Returns false, writing nothing, when the trial is already finished.
   */
  completeTrial(trialId: string, outcome: TrialOutcome, calls: CallRecord[]): Promise<boolean>;
  /**
   * Several completions in one transaction (group commit): each behaves as completeTrial, and
   * all land together or none do. Returns, per entry, whether it was written.
   */
  completeTrials(entries: readonly TrialCompletion[]): Promise<boolean[]>;
  /** Stored tasks by hash (those found); see TrialRow.taskHash. */
  getTasks(hashes: readonly string[]): Promise<Map<string, TaskInput>>;
  /** Calls of a run (optionally of one trial), ordered by trial, execution, seq. */
  listCalls(runId: string, trialId?: string): Promise<CallRecord[]>;
  /** Calls of several trials in one query (a page of trials), grouped by trial id in call order. */
  listCallsOf(runId: string, trialIds: readonly string[]): Promise<Map<string, CallRecord[]>>;
  /**
   * The same calls without their messages, parameters, response and tool calls: what the per-call
   * checks and the agent columns read (analysis reads every call of a study, so it skips the text).
   */
  listCallFactsOf(runId: string, trialIds: readonly string[]): Promise<Map<string, CallFacts[]>>;
  /**
   * Upserts scores by (trial, scorer, version) in one transaction: re-scoring with the same
   * scorer version replaces the earlier row, a new version adds one.
   */
  saveScores(records: readonly ScoreRecord[]): Promise<void>;
  /**
   * Scores of a run's trials, ordered by trial id then created_at; optionally of one scorer
   * (and version) and of some trials only.
   */
  listScores(
    runId: string,
    filter?: { scorer?: string; version?: string; trialIds?: readonly string[] },
  ): Promise<ScoreRecord[]>;
  /** Whether any trial of the run has a stored score (readers skip the per-page score reads if not). */
  hasScores(runId: string): Promise<boolean>;
  // ---------------------------------------------------------------- narrow reads for analysis
  /**
   * `listTrials` without the trials' free text: each trial's outcome has a null final answer and
   * error message and no dropped parameters, and trials of one stored condition share its record.
   * What analysis reads of every trial of a study, at a fraction of the cost.
   */
  listTrialFacts(runId: string, filter?: { limit?: number; afterId?: string }): Promise<TrialRow[]>;
  /**
   * Of each stored task, the fields that say where its gold option was shown and how it was scored
   * (`TaskFacts`), without expanding the rest of the task's shared texts (prompt, question, exemplars).
   */
  getTaskFacts(hashes: readonly string[]): Promise<Map<string, TaskFacts>>;
  cacheGet(key: string): Promise<GenerateResult | undefined>;
  cachePut(key: string, value: GenerateResult): Promise<void>;
  close(): Promise<void>;
}
