/**
 * The one TrialStore implementation, written against kysely so the same queries run on SQLite
 * (better-sqlite3) and PostgreSQL (pg). Dialect differences live in open.ts (connection setup);
 * here the only concession is parsing int8 values, which pg returns as strings.
 *
 * Execution numbers: completeTrial computes the execution number itself (executions + 1, read
 * and incremented inside its transaction) and stores every call under it. The `execution`
 * field callers put on CallRecords is ignored, because only the store can number executions
 * race-free when several workers touch the same trial.
 */
import { type Kysely, Migrator, type Selectable, sql, type Transaction } from "kysely";
import type { ImportedFrom } from "../../contracts/provenance.js";
import type { StudySpec } from "../../contracts/spec.js";
import type {
  CallChecks,
  CallRecord,
  PlannedTrial,
  ScoreRecord,
  TrialOutcome,
  TrialStatus,
} from "../../contracts/trial.js";
import type { GenerateResult } from "../../contracts/provider.js";
import type { TaskInput } from "../../contracts/task.js";
import type { FailureBucket } from "../../contracts/failure.js";
import {
  type CallsTable,
  migrationProvider,
  type ScoresTable,
  type StoreDatabase,
  type TasksTable,
  type TrialsTable,
} from "./schema.js";
import { KyselyJudgementStore } from "./judgement-queries.js";
import { type PageRequest, TrialBrowser, type TrialGroup, type TrialQuery } from "./browse.js";
import { KyselyLeaseStore } from "./lease-queries.js";
import { KyselyBatchStore } from "./batch-queries.js";
import { KyselyBudgetStore } from "./budget-queries.js";
import { compareKeys, retryLockConflicts } from "./lock-conflicts.js";
import { hasSearchQueue, indexSearchQueue } from "./search-index.js";
import { arrayRows, columnPositions } from "./array-rows.js";
import {
  decodeNode,
  encodeTask,
  insertTexts,
  jsonOf,
  type NewTexts,
  REF,
  refOf,
  sharedJson,
  TextReader,
} from "./texts.js";
import type {
  BatchStore,
  BudgetStore,
  CallFacts,
  JudgementStore,
  LeaseStore,
  RunRecord,
  TaskFacts,
  TrialCompletion,
  TrialRow,
  TrialStore,
} from "./types.js";
import { TASK_FACT_FIELDS } from "./types.js";

export type StoreDialect = "sqlite" | "postgres";

export interface KyselyTrialStoreOptions {
  /** PostgreSQL schema that holds kysely's migration bookkeeping (the store's schema). */
  migrationSchema?: string;
  /** Releases the connection on close (default: destroy the kysely instance). */
  release?: () => Promise<void>;
}

/**
 * Bound parameters per statement, kept under SQLite's limit (32,766 since 3.32) and PG's
 * (65,535); batches are sized from it by the number of columns per row.
 */
const MAX_BOUND_PARAMS = 30_000;
const MAX_ROWS_PER_BATCH = 2_000;

/**
 * Trials a writer completes between bulk updates of the search index (SQLite): the viewer
 * searches fewer still-queued trials than this through its own temp index of the queue.
 */
export const SEARCH_QUEUE_BATCH = 5_000;

/** How many stored task hashes a store remembers before it starts over (bounded memory). */
const STORED_TASKS_REMEMBERED = 100_000;

const STATUSES: readonly TrialStatus[] = ["pending", "finished", "errored"];

type TrialSelect = Selectable<TrialsTable>;
type CallSelect = Selectable<CallsTable>;
type Db = Kysely<StoreDatabase> | Transaction<StoreDatabase>;
/** A call row's columns that may refer to shared texts (messages and parameters when selected). */
type CallTextColumns = Pick<CallSelect, "note" | "checks"> & Partial<Pick<CallSelect, "messages" | "params_used">>;

export class KyselyTrialStore implements TrialStore {
  private closed = false;
  private readonly judgements: KyselyJudgementStore;
  private readonly browser: TrialBrowser;
  private readonly leases: KyselyLeaseStore;
  private readonly batches: KyselyBatchStore;
  private readonly budget: KyselyBudgetStore;
  /** Hashes of tasks this store committed (tasks are never deleted): their insert is skipped. */
  private readonly storedTasks = new Set<string>();
  /** Keys of texts this store committed (texts are never deleted): their insert is skipped. */
  private readonly storedTexts = new Set<string>();
  private readonly texts: TextReader;
  /** Parsed conditions by their stored column (`listTrialFacts`). */
  private readonly conditionRecords = new Map<string, TrialRow["condition"]>();
  /** Trials this store completed since it last indexed the search queue (SQLite). */
  private unindexed = 0;
  /** Whether the store has the search queue (asked once, when first needed). */
  private searchQueue?: Promise<boolean>;

  constructor(
    private readonly db: Kysely<StoreDatabase>,
    readonly dialect: StoreDialect,
    private readonly options: KyselyTrialStoreOptions = {},
  ) {
    this.texts = new TextReader(db);
    this.judgements = new KyselyJudgementStore(db);
    this.browser = new TrialBrowser(db, dialect);
    this.leases = new KyselyLeaseStore(db, dialect, (rows) => this.trialRows(rows));
    this.batches = new KyselyBatchStore(db);
    this.budget = new KyselyBudgetStore(db, dialect, (runId) => this.spent(runId));
  }

  // Batch mode's provider batches and their requests: see batch-queries.ts.
  recordBatch: BatchStore["recordBatch"] = (...a) => this.batches.recordBatch(...a);
  batchRequests: BatchStore["batchRequests"] = (...a) => this.batches.batchRequests(...a);
  settleBatch: BatchStore["settleBatch"] = (...a) => this.batches.settleBatch(...a);
  listBatches: BatchStore["listBatches"] = (...a) => this.batches.listBatches(...a);
  recordSubmission: BatchStore["recordSubmission"] = (...a) => this.batches.recordSubmission(...a);
  recordSubmitted: BatchStore["recordSubmitted"] = (...a) => this.batches.recordSubmitted(...a);
  abandonSubmission: BatchStore["abandonSubmission"] = (...a) => this.batches.abandonSubmission(...a);
  batchSubmission: BatchStore["batchSubmission"] = (...a) => this.batches.batchSubmission(...a);
  listSubmissions: BatchStore["listSubmissions"] = (...a) => this.batches.listSubmissions(...a);
  recordedBatchIds: BatchStore["recordedBatchIds"] = (...a) => this.batches.recordedBatchIds(...a);

  // The run's shared budget counter: see budget-queries.ts.
  openBudget: BudgetStore["openBudget"] = (...a) => this.budget.openBudget(...a);
  reserveBudget: BudgetStore["reserveBudget"] = (...a) => this.budget.reserveBudget(...a);
  settleBudget: BudgetStore["settleBudget"] = (...a) => this.budget.settleBudget(...a);
  renewBudgetReservations: BudgetStore["renewBudgetReservations"] = (...a) => this.budget.renewBudgetReservations(...a);
  expireBudgetReservations: BudgetStore["expireBudgetReservations"] = (...a) =>
    this.budget.expireBudgetReservations(...a);
  budgetState: BudgetStore["budgetState"] = (...a) => this.budget.budgetState(...a);

  // Scale-out leases, workers and the run's items: see lease-queries.ts.
  claimTrials: LeaseStore["claimTrials"] = (...a) => this.leases.claimTrials(...a);
  renewLeases: LeaseStore["renewLeases"] = (...a) => this.leases.renewLeases(...a);
  releaseLeases: LeaseStore["releaseLeases"] = (...a) => this.leases.releaseLeases(...a);
  registerWorker: LeaseStore["registerWorker"] = (...a) => this.leases.registerWorker(...a);
  heartbeatWorker: LeaseStore["heartbeatWorker"] = (...a) => this.leases.heartbeatWorker(...a);
  stopWorker: LeaseStore["stopWorker"] = (...a) => this.leases.stopWorker(...a);
  listWorkers: LeaseStore["listWorkers"] = (...a) => this.leases.listWorkers(...a);
  leaseSummary: LeaseStore["leaseSummary"] = (...a) => this.leases.leaseSummary(...a);
  othersLeases: LeaseStore["othersLeases"] = (...a) => this.leases.othersLeases(...a);
  saveRunItems: LeaseStore["saveRunItems"] = (...a) => this.leases.saveRunItems(...a);
  saveRunItemBatches: LeaseStore["saveRunItemBatches"] = (...a) => this.leases.saveRunItemBatches(...a);
  listRunItems: LeaseStore["listRunItems"] = (...a) => this.leases.listRunItems(...a);
  saveRunPlugins: LeaseStore["saveRunPlugins"] = (...a) => this.leases.saveRunPlugins(...a);
  listRunPlugins: LeaseStore["listRunPlugins"] = (...a) => this.leases.listRunPlugins(...a);

  // Judge verdicts and blinding state: see judgement-queries.ts.
  sealBlindingRound: JudgementStore["sealBlindingRound"] = (...a) => this.judgements.sealBlindingRound(...a);
  recordJudgeCall: JudgementStore["recordJudgeCall"] = (...a) => this.judgements.recordJudgeCall(...a);
  saveVerdicts: JudgementStore["saveVerdicts"] = (...a) => this.judgements.saveVerdicts(...a);
  finishBlindingRound: JudgementStore["finishBlindingRound"] = (...a) => this.judgements.finishBlindingRound(...a);
  unblindRound: JudgementStore["unblindRound"] = (...a) => this.judgements.unblindRound(...a);
  appendBlindingLog: JudgementStore["appendBlindingLog"] = (...a) => this.judgements.appendBlindingLog(...a);
  getBlindingRound: JudgementStore["getBlindingRound"] = (...a) => this.judgements.getBlindingRound(...a);
  listVerdicts: JudgementStore["listVerdicts"] = (...a) => this.judgements.listVerdicts(...a);
  listBlindingLog: JudgementStore["listBlindingLog"] = (...a) => this.judgements.listBlindingLog(...a);
  listJudgeCalls: JudgementStore["listJudgeCalls"] = (...a) => this.judgements.listJudgeCalls(...a);

  /** Applies the pending migrations; `to` (a migration's name) migrates up or down to it instead. */
  async migrate(to?: string): Promise<void> {
    if (to === undefined && (await this.fullyMigrated())) return;
    const migrator = new Migrator({
      db: this.db,
      provider: migrationProvider,
      migrationTableSchema: this.dialect === "postgres" ? this.options.migrationSchema : undefined,
    });
    const migrateOnce = () => (to === undefined ? migrator.migrateToLatest() : migrator.migrateTo(to));
    let outcome = await migrateOnce();
    // Kysely's setup lists the tables of every schema (its introspector), which fails when another
    // session drops a schema or a table meanwhile; nothing was applied then, so it is tried again.
    for (let retry = 0; retry < 5 && this.otherSchemaDropped(outcome.error); retry++) outcome = await migrateOnce();
    const { error, results } = outcome;
    if (error) {
      const failed = results?.find((r) => r.status === "Error")?.migrationName;
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`store migration ${failed ?? "setup"} failed: ${message}`, { cause: error });
    }
  }

  /**
   * A migration setup error about a schema, or a table of a schema, other than the store's that
   * vanished while kysely listed the tables (PostgreSQL; another session dropped it).
   */
  private otherSchemaDropped(error: unknown): boolean {
    const message = error instanceof Error ? error.message : "";
    const schema =
      /schema "([^"]+)" does not exist/.exec(message)?.[1] ??
      /relation "([^".]+)\.[^"]+" does not exist/.exec(message)?.[1];
    return this.dialect === "postgres" && schema !== undefined && schema !== this.options.migrationSchema;
  }

  /**
   * Whether the store's migration table already lists every migration. The Migrator's own check
   * introspects every table of every schema in the database (kysely's introspector), which fails
   * when another session drops a schema meanwhile; reading our one table does not.
   */
  private async fullyMigrated(): Promise<boolean> {
    const names = Object.keys(await migrationProvider.getMigrations());
    try {
      const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(this.db);
      const done = new Set(rows.map((row) => row.name));
      return names.every((name) => done.has(name));
    } catch {
      return false; // no migration table yet: a new store
    }
  }

  async saveRun(run: RunRecord): Promise<void> {
    await this.db
      .insertInto("runs")
      .values({
        id: run.id,
        study: run.study,
        spec_hash: run.specHash,
        manifest_hash: run.manifestHash,
        spec: JSON.stringify(run.spec),
        created_at: run.createdAt,
        parallax_version: run.parallaxVersion,
        spec_dir: run.specDir ?? null,
        imported: run.imported ? JSON.stringify(run.imported) : null,
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
  }

  async saveAnalysis(runId: string, record: string): Promise<void> {
    const writtenAt = new Date().toISOString();
    await this.db
      .insertInto("analyses")
      .values({ run_id: runId, record, written_at: writtenAt })
      .onConflict((oc) => oc.column("run_id").doUpdateSet({ record, written_at: writtenAt }))
      .execute();
  }

  async getAnalysis(runId: string): Promise<string | undefined> {
    try {
      const row = await this.db.selectFrom("analyses").select("record").where("run_id", "=", runId).executeTakeFirst();
      return row?.record;
    } catch {
      // A read-only store from before migration 0015 has no analyses table.
      return undefined;
    }
  }

  async saveSequentialLook(runId: string, look: number, record: string): Promise<void> {
    const recordedAt = new Date().toISOString();
    await this.db
      .insertInto("sequential_looks")
      .values({ run_id: runId, look, record, recorded_at: recordedAt })
      .onConflict((oc) => oc.columns(["run_id", "look"]).doNothing())
      .execute();
  }

  async listSequentialLooks(runId: string): Promise<{ look: number; record: string }[]> {
    try {
      return await this.db
        .selectFrom("sequential_looks")
        .select(["look", "record"])
        .where("run_id", "=", runId)
        .orderBy("look")
        .execute();
    } catch {
      // A read-only store from before migration 0019 has no sequential_looks table.
      return [];
    }
  }

  async getRun(id?: string): Promise<RunRecord | undefined> {
    let query = this.db.selectFrom("runs").selectAll();
    query =
      id === undefined
        ? query.orderBy("created_at", "desc").orderBy("id", "desc").limit(1)
        : query.where("id", "=", id);
    const row = await query.executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      study: row.study,
      specHash: row.spec_hash,
      manifestHash: row.manifest_hash,
      spec: JSON.parse(row.spec) as StudySpec,
      createdAt: row.created_at,
      parallaxVersion: row.parallax_version,
      ...(row.spec_dir ? { specDir: row.spec_dir } : {}),
      ...(row.imported ? { imported: JSON.parse(row.imported) as ImportedFrom } : {}),
    };
  }

  async addPlannedTrials(trials: PlannedTrial[]): Promise<number> {
    if (trials.length === 0) return 0;
    // One transaction: fast on SQLite (one fsync) and all-or-nothing on both dialects.
    const texts: NewTexts = new Map();
    const rows = trials.map((t) => plannedRow(t, texts));
    const inserted = await this.db.transaction().execute(async (trx) => {
      await lockRuns(trx, trials);
      await insertTexts(trx, texts, this.storedTexts);
      let inserted = 0;
      for (const batch of chunks(rows, batchSize(rows[0]))) {
        const result = await trx
          .insertInto("trials")
          .values(batch)
          .onConflict((oc) => oc.column("id").doNothing())
          .executeTakeFirst();
        inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
      }
      return inserted;
    });
    this.rememberTexts(texts);
    return inserted;
  }

  /** Committed texts: later writes skip their insert (bounded memory). */
  private rememberTexts(texts: NewTexts): void {
    if (this.storedTexts.size + texts.size > STORED_TASKS_REMEMBERED) this.storedTexts.clear();
    for (const key of texts.keys()) this.storedTexts.add(key);
  }

  /** Trial rows as records, their shared condition texts read (once: a run has few conditions). */
  private async trialRows(rows: readonly TrialSelect[]): Promise<TrialRow[]> {
    const keys: string[] = [];
    for (const r of rows) {
      const key = refOf(r.condition);
      if (key !== undefined) keys.push(key);
    }
    const texts = await this.texts.texts(keys);
    return rows.map((r) => toTrialRow(r, texts));
  }

  async finishWrites(): Promise<void> {
    if (this.dialect !== "sqlite") return;
    await this.indexSearchQueue();
    // A sampled ANALYZE (a few ms a table): without statistics SQLite walks a large run in id order
    // for a filter an index answers directly (the viewer's filters, the report's cells).
    await sql`pragma analysis_limit = 1000`.execute(this.db);
    await sql`analyze`.execute(this.db);
  }

  /** Indexes the trials queued for search (search-index.ts), when the store has the queue. */
  private async indexSearchQueue(): Promise<void> {
    this.unindexed = 0;
    if (this.dialect !== "sqlite") return;
    this.searchQueue ??= hasSearchQueue(this.db);
    if (await this.searchQueue) await indexSearchQueue(this.db);
  }

  unfinishedTrialsAmong(runId: string, ids: readonly string[]): Promise<TrialRow[]> {
    return this.trialsWithIds(runId, ids, ["pending", "errored"]);
  }

  trialsAmong(runId: string, ids: readonly string[]): Promise<TrialRow[]> {
    return this.trialsWithIds(runId, ids);
  }

  private async trialsWithIds(runId: string, ids: readonly string[], statuses?: TrialStatus[]): Promise<TrialRow[]> {
    const rows: TrialSelect[] = [];
    // Chunked: SQLite and PostgreSQL cap the parameters of one statement.
    for (const chunk of chunks([...ids], 500)) {
      if (chunk.length === 0) continue;
      let query = this.db.selectFrom("trials").selectAll().where("run_id", "=", runId).where("id", "in", chunk);
      if (statuses) query = query.where("status", "in", statuses);
      rows.push(...(await query.execute()));
    }
    return this.trialRows(rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  }

  async listTrials(
    runId: string,
    filter: { status?: TrialStatus[]; limit?: number; afterId?: string } = {},
  ): Promise<TrialRow[]> {
    // An explicit empty status list selects nothing (not everything).
    if (filter.status?.length === 0) return [];
    let query = this.db.selectFrom("trials").selectAll().where("run_id", "=", runId);
    if (filter.status) query = query.where("status", "in", filter.status);
    // Keyset paging: the (run_id, status, id) index serves it without an offset scan.
    if (filter.afterId !== undefined) query = query.where("id", ">", filter.afterId);
    query = query.orderBy("id");
    if (filter.limit !== undefined) query = query.limit(filter.limit);
    const rows = await query.execute();
    return this.trialRows(rows);
  }

  async browseTrials(
    runId: string,
    query: TrialQuery,
    page: PageRequest,
  ): Promise<{ trials: TrialRow[]; more: boolean }> {
    const { rows, more } = await this.browser.page(runId, query, page);
    return { trials: await this.trialRows(rows), more };
  }

  trialGroups(runId: string): Promise<TrialGroup[]> {
    return this.browser.groups(runId);
  }

  async countByStatus(runId: string): Promise<Record<TrialStatus, number>> {
    const rows = await this.db
      .selectFrom("trials")
      .select((eb) => ["status", eb.fn.countAll().as("n")])
      .where("run_id", "=", runId)
      .groupBy("status")
      .execute();
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<TrialStatus, number>;
    for (const row of rows) counts[row.status as TrialStatus] = toSafeInt(row.n);
    return counts;
  }

  async hasSimulatedTrials(runId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("trials")
      .select("id")
      .where("run_id", "=", runId)
      .where("simulated", "=", 1)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async spent(runId: string): Promise<{ calls: number; costUsd: number }> {
    const row = await this.db
      .selectFrom("calls")
      .innerJoin("trials", "trials.id", "calls.trial_id")
      .select((eb) => [eb.fn.countAll().as("n"), eb.fn.sum<number | string | null>("calls.cost_usd").as("cost")])
      .where("trials.run_id", "=", runId)
      .executeTakeFirst();
    return { calls: toSafeInt(row?.n ?? 0), costUsd: Number(row?.cost ?? 0) };
  }

  async completeTrial(trialId: string, outcome: TrialOutcome, calls: CallRecord[]): Promise<boolean> {
    const [written] = await this.completeTrials([{ trialId, outcome, calls }]);
    return written;
  }

  async completeTrials(entries: readonly TrialCompletion[]): Promise<boolean[]> {
    for (const entry of entries) checkCompletion(entry);
    // Trials in id order (tasks in hash order, below): concurrent workers lock rows in one order.
    const order = [...entries.keys()].sort((a, b) => compareKeys(entries[a].trialId, entries[b].trialId));
    // The rows are made before the transaction (hashing outside the write lock); texts are
    // inserted before the rows that refer to them.
    const texts: NewTexts = new Map();
    const callRows = entries.map((e) => e.calls.map((c) => callRow(c, 0, texts)));
    const tasks = taskRows(
      entries.filter((e) => !this.storedTasks.has(e.task?.hash ?? "")),
      texts,
    );
    const written = await retryLockConflicts(() =>
      this.db.transaction().execute(async (trx) => {
        await insertTexts(trx, texts, this.storedTexts);
        const written: boolean[] = new Array(entries.length);
        for (const i of order) written[i] = await completeOne(trx, entries[i], callRows[i]);
        const sent = new Set(entries.flatMap((e, i) => (written[i] && e.task ? [e.task.hash] : [])));
        await insertTasks(
          trx,
          tasks.filter((t) => sent.has(t.hash)),
        );
        return written;
      }),
    );
    // Committed: later completions of the same task (other attempts, models) skip its insert.
    if (this.storedTasks.size > STORED_TASKS_REMEMBERED) this.storedTasks.clear();
    for (const [i, entry] of entries.entries()) if (written[i] && entry.task) this.storedTasks.add(entry.task.hash);
    this.rememberTexts(texts);
    this.unindexed += entries.length;
    // The trials are committed whatever the index does: a failed bulk update leaves the queue,
    // which the next one (or the viewer's temp index) reads.
    if (this.unindexed >= SEARCH_QUEUE_BATCH) await this.indexSearchQueue().catch(() => {});
    return written;
  }

  async getTasks(hashes: readonly string[]): Promise<Map<string, TaskInput>> {
    const out = new Map<string, TaskInput>();
    for (const batch of chunks([...new Set(hashes)], 1_000)) {
      const rows = await this.db.selectFrom("tasks").selectAll().where("hash", "in", batch).execute();
      const json = await this.texts.taskJson(rows.map((r) => r.task));
      for (const [i, row] of rows.entries()) out.set(row.hash, JSON.parse(json[i]) as TaskInput);
    }
    return out;
  }

  async listCalls(runId: string, trialId?: string): Promise<CallRecord[]> {
    let query = this.db
      .selectFrom("calls")
      .innerJoin("trials", "trials.id", "calls.trial_id")
      .selectAll("calls")
      .where("trials.run_id", "=", runId);
    if (trialId !== undefined) query = query.where("calls.trial_id", "=", trialId);
    const rows = await query.orderBy("calls.trial_id").orderBy("calls.execution").orderBy("calls.seq").execute();
    const texts = await this.callTexts(rows);
    return rows.map((row) => toCallRecord(row, texts));
  }

  async listCallsOf(runId: string, trialIds: readonly string[]): Promise<Map<string, CallRecord[]>> {
    return this.callsByTrial(
      trialIds,
      (ids) => this.callsOfTrials(runId, ids).selectAll("calls").execute(),
      toCallRecord,
    );
  }

  async listCallFactsOf(runId: string, trialIds: readonly string[]): Promise<Map<string, CallFacts[]>> {
    const byTrial = new Map<string, CallFacts[]>(trialIds.map((id) => [id, []]));
    // Chunked to stay well under the bound-parameter limits of both databases; rows as arrays (every call is read).
    for (const ids of chunks([...trialIds], 1_000)) {
      const query = this.callsOfTrials(runId, ids).select(CALL_FACT_COLUMNS);
      const rows = await arrayRows(this.db, this.dialect, query, CALL_FACT_COLUMNS);
      const keys: string[] = [];
      for (const r of rows) {
        for (const column of [r[CALL.note], r[CALL.checks]]) {
          const key = refOf(column as string | null);
          if (key !== undefined) keys.push(key);
        }
      }
      const texts = await this.texts.texts(keys);
      for (const r of rows) byTrial.get(r[CALL.trial_id] as string)?.push(toCallFacts(r, texts));
    }
    return byTrial;
  }

  /** The calls of these trials of the run, in trial, execution and sequence order (columns to select). */
  private callsOfTrials(runId: string, ids: readonly string[]) {
    return this.db
      .selectFrom("calls")
      .innerJoin("trials", "trials.id", "calls.trial_id")
      .where("trials.run_id", "=", runId)
      .where("calls.trial_id", "in", ids)
      .orderBy("calls.trial_id")
      .orderBy("calls.execution")
      .orderBy("calls.seq");
  }

  /** Each trial's calls, read a chunk of trials at a time and made records by `toRecord`. */
  private async callsByTrial<Row extends CallTextColumns & { trial_id: string }, Out>(
    trialIds: readonly string[],
    read: (ids: readonly string[]) => Promise<Row[]>,
    toRecord: (row: Row, texts: ReadonlyMap<string, string>) => Out,
  ): Promise<Map<string, Out[]>> {
    const byTrial = new Map<string, Out[]>(trialIds.map((id) => [id, []]));
    // Chunked to stay well under the bound-parameter limits of both databases.
    for (const ids of chunks([...trialIds], 1_000)) {
      const rows = await read(ids);
      const texts = await this.callTexts(rows);
      for (const row of rows) byTrial.get(row.trial_id)?.push(toRecord(row, texts));
    }
    return byTrial;
  }

  /** The shared texts the calls' columns refer to. */
  private callTexts(rows: readonly CallTextColumns[]): Promise<Map<string, string>> {
    const keys: string[] = [];
    for (const r of rows) {
      for (const column of [r.messages ?? null, r.params_used ?? null, r.note, r.checks]) {
        const key = refOf(column);
        if (key !== undefined) keys.push(key);
      }
    }
    return this.texts.texts(keys);
  }

  async saveScores(records: readonly ScoreRecord[]): Promise<void> {
    if (records.length === 0) return;
    const rows = records.map(scoreRow);
    await this.db.transaction().execute(async (trx) => {
      for (const batch of chunks(rows, batchSize(rows[0]))) {
        await trx
          .insertInto("scores")
          .values(batch)
          .onConflict((oc) =>
            oc.columns(["trial_id", "scorer", "version"]).doUpdateSet((eb) => ({
              parsed_answer: eb.ref("excluded.parsed_answer"),
              parse_status: eb.ref("excluded.parse_status"),
              score: eb.ref("excluded.score"),
              details: eb.ref("excluded.details"),
              created_at: eb.ref("excluded.created_at"),
            })),
          )
          .execute();
      }
    });
  }

  async listScores(
    runId: string,
    filter: { scorer?: string; version?: string; trialIds?: readonly string[] } = {},
  ): Promise<ScoreRecord[]> {
    if (filter.trialIds?.length === 0) return [];
    let query = this.db
      .selectFrom("scores")
      .innerJoin("trials", "trials.id", "scores.trial_id")
      .selectAll("scores")
      .where("trials.run_id", "=", runId);
    if (filter.scorer !== undefined) query = query.where("scores.scorer", "=", filter.scorer);
    if (filter.version !== undefined) query = query.where("scores.version", "=", filter.version);
    if (filter.trialIds) query = query.where("scores.trial_id", "in", [...filter.trialIds]);
    const rows = await query
      .orderBy("scores.trial_id")
      .orderBy("scores.created_at")
      .orderBy("scores.scorer")
      .orderBy("scores.version")
      .execute();
    return rows.map(toScoreRecord);
  }

  async hasScores(runId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("scores")
      .innerJoin("trials", "trials.id", "scores.trial_id")
      .select("scores.trial_id")
      .where("trials.run_id", "=", runId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  // ---------------------------------------------------------------- narrow reads for analysis

  async listTrialFacts(runId: string, filter: { limit?: number; afterId?: string } = {}): Promise<TrialRow[]> {
    let query = this.db.selectFrom("trials").select(TRIAL_FACT_COLUMNS).where("run_id", "=", runId);
    if (filter.afterId !== undefined) query = query.where("id", ">", filter.afterId);
    query = query.orderBy("id");
    if (filter.limit !== undefined) query = query.limit(filter.limit);
    // Rows as arrays: analysis reads every trial of the run, and an object per row cost more than the read.
    const rows = await arrayRows(this.db, this.dialect, query, TRIAL_FACT_COLUMNS);
    const keys: string[] = [];
    for (const r of rows) {
      const stored = r[TRIAL.condition] as string;
      const key = refOf(stored);
      if (key !== undefined && !this.conditionRecords.has(stored)) keys.push(key);
    }
    const texts = await this.texts.texts(keys);
    // A run has few conditions: each stored one is parsed once and its record shared by its trials.
    if (this.conditionRecords.size > STORED_TASKS_REMEMBERED) this.conditionRecords.clear();
    return rows.map((r) => {
      const stored = r[TRIAL.condition] as string;
      let condition = this.conditionRecords.get(stored);
      if (condition === undefined) {
        condition = JSON.parse(jsonOf(stored, texts)) as TrialRow["condition"];
        this.conditionRecords.set(stored, condition);
      }
      return toTrialFactRow(runId, r, condition);
    });
  }

  async getTaskFacts(hashes: readonly string[]): Promise<Map<string, TaskFacts>> {
    const out = new Map<string, TaskFacts>();
    for (const batch of chunks([...new Set(hashes)], 1_000)) {
      const query = this.db.selectFrom("tasks").select(TASK_COLUMNS).where("hash", "in", batch);
      const rows = (await arrayRows(this.db, this.dialect, query, TASK_COLUMNS)) as [string, string][];
      // Only the wanted fields of each encoded task, and the texts they refer to.
      const picked = rows.map(([, task]) => pickTaskFacts(task));
      const texts = await this.texts.referencedTexts(picked.filter((p) => p.encoded).map((p) => p.fields));
      // A shared part (a condition, an option) is decoded once per batch; the records are read-only.
      const decoded = new Map<string, unknown>();
      const decode = (value: unknown): unknown => {
        if (typeof value !== "string" || !value.startsWith(REF) || value.startsWith(REF + REF)) {
          return decodeNode(value, texts);
        }
        if (!decoded.has(value)) decoded.set(value, decodeNode(value, texts));
        return decoded.get(value);
      };
      for (const [i, [hash]] of rows.entries()) {
        const { fields, encoded } = picked[i];
        if (encoded) {
          for (const [field, value] of Object.entries(fields)) {
            fields[field] = Array.isArray(value) ? value.map(decode) : decode(value);
          }
        }
        out.set(hash, fields as unknown as TaskFacts);
      }
    }
    return out;
  }

  async cacheGet(key: string): Promise<GenerateResult | undefined> {
    const row = await this.db.selectFrom("cache").select("value").where("key", "=", key).executeTakeFirst();
    return row ? (JSON.parse(row.value) as GenerateResult) : undefined;
  }

  async cachePut(key: string, value: GenerateResult): Promise<void> {
    // Content-addressed: the first response stored under a key stays.
    await this.db
      .insertInto("cache")
      .values({ key, value: JSON.stringify(value), created_at: new Date().toISOString() })
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // What this store wrote is searchable through the index once it is closed; should that fail
    // (a store closed after an error), the queue stays for the next writer and the viewer.
    if (this.unindexed > 0) await this.indexSearchQueue().catch(() => {});
    await (this.options.release ? this.options.release() : this.db.destroy());
  }
}

async function assertTrialExists(trx: Db, trialId: string): Promise<void> {
  const row = await trx.selectFrom("trials").select("id").where("id", "=", trialId).executeTakeFirst();
  if (!row) throw new Error(`completeTrial: no trial with id ${JSON.stringify(trialId)}`);
}

/**
 * Checks that the trials' runs exist, with a no-op UPDATE of them as the transaction's first
 * statement: on SQLite that takes the write lock up front (a read first could go stale under
 * another process and fail with SQLITE_BUSY instead of waiting); on PG it row-locks the runs,
 * one at a time in sorted order so that concurrent planners cannot deadlock.
 */
async function lockRuns(trx: Db, trials: PlannedTrial[]): Promise<void> {
  const runIds = [...new Set(trials.map((t) => t.runId))].sort();
  const missing: string[] = [];
  for (const id of runIds) {
    const locked = await trx
      .updateTable("runs")
      .set((eb) => ({ study: eb.ref("study") }))
      .where("id", "=", id)
      .returning("id")
      .executeTakeFirst();
    if (!locked) missing.push(JSON.stringify(id));
  }
  if (missing.length > 0) throw new Error(`addPlannedTrials: unknown run ${missing.join(", ")}; saveRun first`);
}

function plannedRow(t: PlannedTrial, texts: NewTexts) {
  return {
    id: t.id,
    run_id: t.runId,
    model_id: t.modelId,
    benchmark_id: t.benchmarkId,
    item_id: t.itemId,
    condition_hash: t.conditionHash,
    condition: sharedJson(JSON.stringify(t.condition), texts),
    attempt: t.attempt,
    status: "pending",
  };
}

/**
 * A completed trial's columns, written out in one literal: spread into a larger object, as they
 * were, each completion's object got a hidden class of its own from V8 (see callRecord).
 */
function completionColumns<Executions>(o: TrialOutcome, taskHash: string | null, executions: Executions) {
  return {
    status: o.status,
    final_answer: o.finalAnswer,
    parsed_answer: o.parsedAnswer,
    parse_status: o.parseStatus,
    score: o.score,
    scorer: o.scorer,
    failure_bucket: o.failureBucket,
    error_message: o.errorMessage,
    input_tokens: o.usage.inputTokens,
    output_tokens: o.usage.outputTokens,
    cost_usd: o.costUsd,
    latency_ms: o.latencyMs,
    dropped_params: JSON.stringify(o.droppedParams),
    simulated: o.simulated ? 1 : 0,
    model_revision: o.modelRevision ?? null,
    updated_at: new Date().toISOString(),
    task_hash: taskHash,
    executions,
    lease_owner: null,
    lease_expires_at: null,
  };
}

/** The call's row (its execution set at completion); long JSON columns go to `texts`. */
function callRow(c: CallRecord, execution: number, texts: NewTexts): CallsTable {
  return {
    trial_id: c.trialId,
    execution,
    seq: c.seq,
    role: c.role,
    messages: sharedJson(JSON.stringify(c.messages), texts),
    params_used: sharedJson(JSON.stringify(c.paramsUsed), texts),
    dropped_params: JSON.stringify(c.droppedParams),
    response_text: c.responseText,
    tool_calls: c.toolCalls === undefined ? null : JSON.stringify(c.toolCalls),
    finish_reason: c.finishReason ?? null,
    input_tokens: c.usage.inputTokens,
    output_tokens: c.usage.outputTokens,
    cache_read_tokens: c.usage.cacheReadTokens ?? null,
    cache_write_tokens: c.usage.cacheWriteTokens ?? null,
    cost_usd: c.costUsd,
    latency_ms: c.latencyMs,
    cached: c.cached ? 1 : 0,
    error_bucket: c.error?.bucket ?? null,
    error_message: c.error?.message ?? null,
    started_at: c.startedAt,
    ...auditColumns(c, texts),
  };
}

/** The checks go to one JSON column; the audit_* columns of migration 0002 are no longer written. */
function auditColumns(c: CallRecord, texts: NewTexts) {
  return {
    audit_options_reached: null,
    audit_system_prompt_retained: null,
    audit_safety_reached: null,
    audit_persona_leak: null,
    checks: c.audit === undefined ? null : sharedJson(JSON.stringify(c.audit), texts),
    note: c.note === undefined ? null : sharedJson(JSON.stringify(c.note), texts),
  };
}

/** The stored checks, or undefined when none applied; calls stored before "call_checks" read the audit_* columns. */
function toAudit(r: AuditSelect | { checks: string }, texts: ReadonlyMap<string, string>): CallChecks | undefined {
  const checks: Record<string, unknown> =
    r.checks === null ? legacyChecks(r as AuditSelect) : JSON.parse(jsonOf(r.checks, texts));
  return Object.values(checks).every((v) => v === null) ? undefined : checks;
}

/** The four checks of migration 0002's columns, under their auditors' names. */
type AuditSelect = Pick<
  CallSelect,
  "checks" | "audit_options_reached" | "audit_system_prompt_retained" | "audit_safety_reached" | "audit_persona_leak"
>;

function legacyChecks(r: AuditSelect): Record<string, unknown> {
  return {
    options_reached: flagOf(r.audit_options_reached),
    system_prompt_retained: r.audit_system_prompt_retained,
    safety_reached: flagOf(r.audit_safety_reached),
    persona_leak: r.audit_persona_leak === null ? null : JSON.parse(r.audit_persona_leak),
  };
}

function flagOf(value: number | null): boolean | null {
  return value === null ? null : value === 1;
}

function toTrialRow(r: TrialSelect, texts: ReadonlyMap<string, string>): TrialRow {
  const status = r.status as TrialStatus;
  return {
    id: r.id,
    runId: r.run_id,
    modelId: r.model_id,
    benchmarkId: r.benchmark_id,
    itemId: r.item_id,
    conditionHash: r.condition_hash,
    condition: JSON.parse(jsonOf(r.condition, texts)),
    attempt: r.attempt,
    status,
    executions: toSafeInt(r.executions),
    outcome: status === "pending" ? null : toOutcome(r, status),
    updatedAt: r.updated_at,
    taskHash: r.task_hash ?? null,
  };
}

function toOutcome(r: TrialSelect, status: TrialOutcome["status"]): TrialOutcome {
  return {
    status,
    finalAnswer: r.final_answer,
    parsedAnswer: r.parsed_answer,
    parseStatus: r.parse_status as TrialOutcome["parseStatus"],
    score: r.score,
    scorer: r.scorer,
    failureBucket: r.failure_bucket as FailureBucket | null,
    errorMessage: r.error_message,
    usage: { inputTokens: toSafeInt(r.input_tokens ?? 0), outputTokens: toSafeInt(r.output_tokens ?? 0) },
    costUsd: r.cost_usd ?? 0,
    latencyMs: r.latency_ms ?? 0,
    droppedParams: r.dropped_params === null ? [] : JSON.parse(r.dropped_params),
    simulated: r.simulated === 1,
    ...(r.model_revision ? { modelRevision: r.model_revision } : {}),
  };
}

/** The columns of `listCallFactsOf`: a call without its text. */
export const CALL_FACT_COLUMNS = [
  "calls.trial_id",
  "calls.execution",
  "calls.seq",
  "calls.role",
  "calls.input_tokens",
  "calls.output_tokens",
  "calls.cache_read_tokens",
  "calls.cache_write_tokens",
  "calls.error_bucket",
  "calls.error_message",
  "calls.audit_options_reached",
  "calls.audit_system_prompt_retained",
  "calls.audit_safety_reached",
  "calls.audit_persona_leak",
  "calls.checks",
  "calls.note",
] as const;

const CALL = columnPositions(CALL_FACT_COLUMNS);

/** A call's facts as toCallRecord has them, without the text columns (a row of CALL_FACT_COLUMNS). */
function toCallFacts(r: readonly unknown[], texts: ReadonlyMap<string, string>): CallFacts {
  const errorBucket = r[CALL.error_bucket] as string | null;
  const record: CallFacts = {
    trialId: r[CALL.trial_id] as string,
    execution: r[CALL.execution] as number,
    seq: r[CALL.seq] as number,
    role: r[CALL.role] as string,
    usage: {
      inputTokens: toSafeInt(r[CALL.input_tokens] as number),
      outputTokens: toSafeInt(r[CALL.output_tokens] as number),
    },
    error:
      errorBucket === null
        ? null
        : { bucket: errorBucket as FailureBucket, message: (r[CALL.error_message] as string | null) ?? "" },
  };
  const cacheRead = r[CALL.cache_read_tokens] as number | null;
  const cacheWrite = r[CALL.cache_write_tokens] as number | null;
  if (cacheRead != null) record.usage.cacheReadTokens = toSafeInt(cacheRead);
  if (cacheWrite != null) record.usage.cacheWriteTokens = toSafeInt(cacheWrite);
  const checks = r[CALL.checks] as string | null;
  const audit = toAudit(
    checks !== null
      ? { checks }
      : {
          checks,
          audit_options_reached: r[CALL.audit_options_reached] as number | null,
          audit_system_prompt_retained: r[CALL.audit_system_prompt_retained] as number | null,
          audit_safety_reached: r[CALL.audit_safety_reached] as number | null,
          audit_persona_leak: r[CALL.audit_persona_leak] as string | null,
        },
    texts,
  );
  if (audit) record.audit = audit;
  const note = r[CALL.note] as string | null;
  if (note !== null) record.note = JSON.parse(jsonOf(note, texts));
  return record;
}

function toCallRecord(r: CallSelect, texts: ReadonlyMap<string, string>): CallRecord {
  const record: CallRecord = {
    trialId: r.trial_id,
    execution: r.execution,
    seq: r.seq,
    role: r.role,
    messages: JSON.parse(jsonOf(r.messages, texts)),
    paramsUsed: JSON.parse(jsonOf(r.params_used, texts)),
    droppedParams: JSON.parse(r.dropped_params),
    responseText: r.response_text,
    finishReason: r.finish_reason,
    usage: { inputTokens: toSafeInt(r.input_tokens), outputTokens: toSafeInt(r.output_tokens) },
    costUsd: r.cost_usd,
    latencyMs: r.latency_ms,
    cached: r.cached === 1,
    error: r.error_bucket === null ? null : { bucket: r.error_bucket as FailureBucket, message: r.error_message ?? "" },
    startedAt: r.started_at,
  };
  if (r.tool_calls !== null) record.toolCalls = JSON.parse(r.tool_calls);
  if (r.cache_read_tokens != null) record.usage.cacheReadTokens = toSafeInt(r.cache_read_tokens);
  if (r.cache_write_tokens != null) record.usage.cacheWriteTokens = toSafeInt(r.cache_write_tokens);
  const audit = toAudit(r, texts);
  if (audit) record.audit = audit;
  if (r.note !== null) record.note = JSON.parse(jsonOf(r.note, texts));
  return record;
}

function scoreRow(r: ScoreRecord): ScoresTable {
  return {
    trial_id: r.trialId,
    scorer: r.scorer,
    version: r.version,
    parsed_answer: r.parsedAnswer,
    parse_status: r.parseStatus,
    score: r.score,
    details: r.details === null ? null : JSON.stringify(r.details),
    created_at: r.createdAt,
  };
}

function toScoreRecord(r: Selectable<ScoresTable>): ScoreRecord {
  return {
    trialId: r.trial_id,
    scorer: r.scorer,
    version: r.version,
    parsedAnswer: r.parsed_answer,
    parseStatus: r.parse_status as ScoreRecord["parseStatus"],
    score: r.score,
    details: r.details === null ? null : JSON.parse(r.details),
    createdAt: r.created_at,
  };
}

/** pg returns int8 (bigint, count(*)) as strings; accept those and refuse silent precision loss. */
export function toSafeInt(value: number | string | bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`store: integer ${String(value)} is outside the safe range`);
  return n;
}

function batchSize(sampleRow: object): number {
  return Math.max(1, Math.min(MAX_ROWS_PER_BATCH, Math.floor(MAX_BOUND_PARAMS / Object.keys(sampleRow).length)));
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function checkCompletion({ trialId, outcome, calls }: TrialCompletion): void {
  if (outcome.status !== "finished" && outcome.status !== "errored") {
    throw new Error(`completeTrial(${trialId}): outcome status must be finished or errored, not ${outcome.status}`);
  }
  const stray = calls.find((c) => c.trialId !== trialId);
  if (stray) throw new Error(`completeTrial(${trialId}): a call belongs to trial ${stray.trialId}`);
}

/** The distinct tasks of the completions, as stored (their shared parts added to `texts`), in hash order. */
function taskRows(completions: readonly TrialCompletion[], texts: NewTexts): TasksTable[] {
  const byHash = new Map<string, string>();
  for (const { task } of completions) if (task && !byHash.has(task.hash)) byHash.set(task.hash, task.json);
  return [...byHash]
    .map(([hash, json]) => ({ hash, task: encodeTask(json, texts) }))
    .sort((a, b) => compareKeys(a.hash, b.hash));
}

/** The written completions' tasks, each stored once (by hash) in the same transaction. */
async function insertTasks(trx: Transaction<StoreDatabase>, rows: readonly TasksTable[]): Promise<void> {
  for (const batch of chunks([...rows], MAX_ROWS_PER_BATCH)) {
    await trx
      .insertInto("tasks")
      .values(batch)
      .onConflict((oc) => oc.column("hash").doNothing())
      .execute();
  }
}

/** One trial's completion inside a transaction; false when the trial was already finished. */
async function completeOne(
  trx: Transaction<StoreDatabase>,
  { trialId, outcome, task, leaseOwner }: TrialCompletion,
  callRows: readonly CallsTable[],
): Promise<boolean> {
  // The conditional UPDATE is the claim: on PG a concurrent completion blocks on the row
  // lock, then re-checks the WHERE and sees 'finished'; on SQLite writers are serialised.
  // Under a lease, only the worker that still holds it may complete the trial.
  let update = trx
    .updateTable("trials")
    .set((eb) => completionColumns(outcome, task?.hash ?? null, eb("executions", "+", 1)))
    .where("id", "=", trialId)
    .where("status", "<>", "finished");
  if (leaseOwner !== undefined) update = update.where("lease_owner", "=", leaseOwner);
  const claimed = await update.returning("executions").executeTakeFirst();
  if (!claimed) {
    await assertTrialExists(trx, trialId);
    return false;
  }
  const execution = toSafeInt(claimed.executions);
  const rows = callRows.map((row) => ({ ...row, execution }));
  if (rows.length > 0) {
    for (const batch of chunks(rows, batchSize(rows[0]))) await trx.insertInto("calls").values(batch).execute();
  }
  return true;
}

// ---------------------------------------------------------------- narrow reads for analysis

/** The columns of `listTrialFacts`: a trial without its free text and lease. */
export const TRIAL_FACT_COLUMNS = [
  "id",
  "model_id",
  "benchmark_id",
  "item_id",
  "condition_hash",
  "condition",
  "attempt",
  "status",
  "executions",
  "parsed_answer",
  "parse_status",
  "score",
  "scorer",
  "failure_bucket",
  "input_tokens",
  "output_tokens",
  "cost_usd",
  "latency_ms",
  "simulated",
  "updated_at",
  "task_hash",
  "model_revision",
] as const;

const TRIAL = columnPositions(TRIAL_FACT_COLUMNS);

/** The columns of `getTaskFacts`' read. */
const TASK_COLUMNS = ["hash", "task"] as const;

/** toTrialRow of a row of the narrow columns (TRIAL_FACT_COLUMNS): no final answer, error message or dropped parameters. */
function toTrialFactRow(runId: string, r: readonly unknown[], condition: TrialRow["condition"]): TrialRow {
  const status = r[TRIAL.status] as TrialStatus;
  const modelRevision = r[TRIAL.model_revision] as string | null;
  return {
    id: r[TRIAL.id] as string,
    runId,
    modelId: r[TRIAL.model_id] as string,
    benchmarkId: r[TRIAL.benchmark_id] as string,
    itemId: r[TRIAL.item_id] as string,
    conditionHash: r[TRIAL.condition_hash] as string,
    condition,
    attempt: r[TRIAL.attempt] as number,
    status,
    executions: toSafeInt(r[TRIAL.executions] as number),
    outcome:
      status === "pending"
        ? null
        : {
            status,
            finalAnswer: null,
            parsedAnswer: r[TRIAL.parsed_answer] as string | null,
            parseStatus: r[TRIAL.parse_status] as TrialOutcome["parseStatus"],
            score: r[TRIAL.score] as number | null,
            scorer: r[TRIAL.scorer] as string | null,
            failureBucket: r[TRIAL.failure_bucket] as FailureBucket | null,
            errorMessage: null,
            usage: {
              inputTokens: toSafeInt((r[TRIAL.input_tokens] as number | null) ?? 0),
              outputTokens: toSafeInt((r[TRIAL.output_tokens] as number | null) ?? 0),
            },
            costUsd: (r[TRIAL.cost_usd] as number | null) ?? 0,
            latencyMs: (r[TRIAL.latency_ms] as number | null) ?? 0,
            droppedParams: [],
            simulated: r[TRIAL.simulated] === 1,
            ...(modelRevision ? { modelRevision } : {}),
          },
    updatedAt: r[TRIAL.updated_at] as string,
    taskHash: (r[TRIAL.task_hash] as string | null) ?? null,
  };
}

/** The `TASK_FACT_FIELDS` of a stored task: still encoded (references not followed) unless stored as JSON. */
function pickTaskFacts(stored: string): { fields: Record<string, unknown>; encoded: boolean } {
  const encoded = stored.startsWith(REF);
  const root = JSON.parse(encoded ? stored.slice(1) : stored) as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const field of TASK_FACT_FIELDS) if (field in root) fields[field] = root[field];
  return { fields, encoded };
}
