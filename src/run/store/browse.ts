/**
 * Browsing a run's trials for the viewer: keyset pages (by trial id, forwards or backwards)
 * with every filter in SQL, so a run of 100k+ trials is never loaded whole. Full-text search
 * over prompts, responses and final answers: on SQLite through the store's FTS5 index (migrations
 * 0022-0023, search-index.ts), with the trials still queued for it searched through a temp index
 * of the queue (a store opened read-only before 0022 gets an FTS5 index of the run built lazily in
 * the connection's temp schema); on PostgreSQL `to_tsvector`/`plainto_tsquery` evaluated by the query.
 */
import { type Kysely, type SelectQueryBuilder, type Selectable, sql } from "kysely";
import type { StoreDatabase, TrialsTable } from "./schema.js";
import { hasSearchQueue, trialSearchBody } from "./search-index.js";
import { resolvedJsonSql } from "./texts.js";

/** What a trial's outcome filter may ask for: scored 1, scored 0, finished unscored, errored, pending. */
export const OUTCOME_FILTERS = ["pass", "fail", "unscored", "errored", "pending"] as const;
export type OutcomeFilter = (typeof OUTCOME_FILTERS)[number];

export interface TrialQuery {
  models?: readonly string[];
  benchmarks?: readonly string[];
  items?: readonly string[];
  /** Conditions by hash (the viewer maps facet filters onto the run's distinct conditions). */
  conditionHashes?: readonly string[];
  outcome?: OutcomeFilter;
  parseStatus?: string;
  failureBucket?: string;
  /** Trials with a sub-call whose propagation check of this name failed (stored as false). */
  auditFailed?: string;
  /** Words that must all occur in the trial's messages, responses or final answer. */
  search?: string;
  trialIds?: readonly string[];
}

export interface PageRequest {
  /** Trials with an id after this one (the next page). */
  after?: string;
  /** Trials with an id before this one (the previous page). */
  before?: string;
  limit: number;
}

export interface RawTrialPage {
  rows: Selectable<TrialsTable>[];
  /** Whether trials exist beyond the page in its direction of travel. */
  more: boolean;
}

/** One distinct (model, benchmark, condition) of a run, with its trial count. */
export interface TrialGroup {
  modelId: string;
  benchmarkId: string;
  conditionHash: string;
  condition: string;
  trials: number;
}

type Dialect = "sqlite" | "postgres";
type TrialSelectQuery = SelectQueryBuilder<StoreDatabase, "trials", Selectable<TrialsTable>>;

const CHECK_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class TrialBrowser {
  /** Per run: the latest `updated_at` already in the SQLite search index (absent: not built). */
  private readonly indexedUpTo = new Map<string, string>();
  /** Per run: the index build in progress (searches wait for it). */
  private readonly indexing = new Map<string, Promise<void>>();
  /** Whether the store has migration 0022's search index (asked once). */
  private indexed?: Promise<boolean>;
  /** Whether the store has migration 0023's search queue (asked once). */
  private queued?: Promise<boolean>;
  /** The queue (count and top seq) the temp index of queued trials holds; the build in progress. */
  private queueIndexed = "";
  private queueIndexing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<StoreDatabase>,
    private readonly dialect: Dialect,
    /** Documents from which a search word counts as dense (see denseWords); tests lower it. */
    private readonly denseDocuments = DENSE_DOCUMENTS,
  ) {}

  /** A page of trials in id order matching `query`; `before` pages backwards but returns id order. */
  async page(runId: string, query: TrialQuery, request: PageRequest): Promise<RawTrialPage> {
    if (query.trialIds?.length === 0 || query.conditionHashes?.length === 0) return { rows: [], more: false };
    const searching = searchWords(query.search).length > 0;
    const stored = searching && (await this.hasSearchIndex());
    if (searching && this.dialect === "sqlite" && !stored) await this.indexForSearch(runId);
    const dense = stored && this.dialect === "sqlite" ? await this.denseWords(query.search) : new Set<string>();
    const queued = stored && (await this.indexQueue());
    let select = this.filtered(runId, query, { stored, dense, queued });
    const backwards = request.before !== undefined && request.after === undefined;
    if (backwards) select = select.where("trials.id", "<", request.before!).orderBy("trials.id", "desc");
    else {
      if (request.after !== undefined) select = select.where("trials.id", ">", request.after);
      select = select.orderBy("trials.id", "asc");
    }
    const rows = await select.limit(request.limit + 1).execute();
    const more = rows.length > request.limit;
    const page = rows.slice(0, request.limit);
    return { rows: backwards ? page.reverse() : page, more };
  }

  /** The run's distinct (model, benchmark, condition) groups: the values the filters offer. */
  async groups(runId: string): Promise<TrialGroup[]> {
    // Covered by the trials_run_group index; the condition text is then read once per group.
    const rows = await this.db
      .selectFrom("trials")
      .select((eb) => ["model_id", "benchmark_id", "condition_hash", eb.fn.countAll().as("n")])
      .where("run_id", "=", runId)
      .groupBy(["model_id", "benchmark_id", "condition_hash"])
      .orderBy("model_id")
      .orderBy("benchmark_id")
      .orderBy("condition_hash")
      .execute();
    const groups: TrialGroup[] = [];
    for (const r of rows) {
      const one = await this.db
        .selectFrom("trials")
        .select(resolvedJsonSql(sql.ref("condition")).as("condition"))
        .where("run_id", "=", runId)
        .where("model_id", "=", r.model_id)
        .where("benchmark_id", "=", r.benchmark_id)
        .where("condition_hash", "=", r.condition_hash)
        .limit(1)
        .executeTakeFirstOrThrow();
      groups.push({
        modelId: r.model_id,
        benchmarkId: r.benchmark_id,
        conditionHash: r.condition_hash,
        condition: one.condition,
        trials: Number(r.n),
      });
    }
    return groups;
  }

  /** SQLite with migration 0022 applied: its FTS5 table exists. */
  private hasSearchIndex(): Promise<boolean> {
    if (this.dialect !== "sqlite") return Promise.resolve(false);
    this.indexed ??= sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'trial_search'`
      .execute(this.db)
      .then((r) => Number(r.rows[0]?.n ?? 0) > 0);
    return this.indexed;
  }

  /**
   * Whether trials wait in the search queue; if so, the temp index `trial_search_queued` holds their
   * current text (rebuilt whenever the queue changed: a writer keeps it to a few thousand trials).
   */
  private async indexQueue(): Promise<boolean> {
    this.queued ??= hasSearchQueue(this.db);
    if (!(await this.queued)) return false;
    const build = this.queueIndexing.then(async () => {
      const { rows } = await sql<{ n: number; top: number | null }>`select count(*) as n, max(seq) as top
        from main.trial_search_queue`.execute(this.db);
      const n = Number(rows[0]?.n ?? 0);
      const state = `${n}:${rows[0]?.top ?? 0}`;
      if (n === 0 || state === this.queueIndexed) return n > 0;
      await sql`drop table if exists temp.trial_search_queued`.execute(this.db);
      await sql`create virtual table temp.trial_search_queued using fts5(trial_id unindexed, body)`.execute(this.db);
      await sql`insert into temp.trial_search_queued (trial_id, body)
        select t.id, ${trialSearchBody("t")} from main.trial_search_queue q join trials t on t.id = q.trial_id`.execute(
        this.db,
      );
      this.queueIndexed = state;
      return true;
    });
    this.queueIndexing = build.then(
      () => {},
      () => {},
    );
    return build;
  }

  /**
   * The search's words (FTS5-quoted) that match at least `denseDocuments` documents of the stored
   * index. Such a word is checked trial by trial as the page is read in id order (a page fills
   * after a few hundred trials); a rarer word's matches are collected first (a few thousand at
   * most), which beats checking each trial of the run when few of them match.
   */
  private async denseWords(search: string | undefined): Promise<Set<string>> {
    const dense = new Set<string>();
    for (const word of quotedWords(search)) {
      const { rows } = await sql<{ n: number }>`select count(*) as n from (select rowid from main.trial_search
        where trial_search match ${word} limit ${this.denseDocuments})`.execute(this.db);
      if (Number(rows[0]?.n ?? 0) >= this.denseDocuments) dense.add(word);
    }
    return dense;
  }

  private filtered(
    runId: string,
    q: TrialQuery,
    search: SearchIndex = { stored: false, dense: new Set(), queued: false },
  ): TrialSelectQuery {
    let s = this.db.selectFrom("trials").selectAll("trials").where("trials.run_id", "=", runId);
    if (q.models?.length) s = s.where("trials.model_id", "in", [...q.models]);
    if (q.benchmarks?.length) s = s.where("trials.benchmark_id", "in", [...q.benchmarks]);
    if (q.items?.length) s = s.where("trials.item_id", "in", [...q.items]);
    if (q.conditionHashes) s = s.where("trials.condition_hash", "in", [...q.conditionHashes]);
    if (q.trialIds) s = s.where("trials.id", "in", [...q.trialIds]);
    if (q.parseStatus) s = s.where("trials.parse_status", "=", q.parseStatus);
    if (q.failureBucket) s = s.where("trials.failure_bucket", "=", q.failureBucket);
    if (q.outcome) s = withOutcome(s, q.outcome);
    if (q.auditFailed) s = s.where(this.auditFailed(q.auditFailed));
    const words = searchWords(q.search);
    if (words.length > 0) s = s.where(this.matches(q.search!, search));
    return s;
  }

  private auditFailed(check: string) {
    if (!CHECK_NAME.test(check)) throw new Error(`invalid check name ${JSON.stringify(check)}`);
    return this.dialect === "sqlite"
      ? sql<boolean>`exists (select 1 from calls c where c.trial_id = trials.id and json_extract(${CHECKS}, ${`$.${check}`}) = 0)`
      : sql<boolean>`exists (select 1 from calls c where c.trial_id = trials.id and ((${CHECKS})::jsonb ->> ${check}) = 'false')`;
  }

  /**
   * `words` for FTS5 (each word must occur in one of the trial's documents: one per trial in the
   * stored index, or one per call and answer for trials 0022 indexed, and one per trial in the temp
   * indexes);
   * PostgreSQL's parser reads the text itself (plainto_tsquery takes any text safely).
   */
  private matches(search: string, index: SearchIndex) {
    const { stored, dense, queued } = index;
    if (this.dialect === "sqlite") {
      const indexed = (w: string) =>
        dense.has(w)
          ? sql`exists (select 1 from main.trial_search s where s.rowid in
              (select d.id from main.trial_search_docs d where d.trial_id = trials.id) and trial_search match ${w})`
          : sql`trials.id in (select d.trial_id from main.trial_search s join main.trial_search_docs d on d.id = s.rowid
              where trial_search match ${w})`;
      // A queued trial's stored documents may be out of date: its current text is in the temp index.
      const one = (w: string) =>
        !stored
          ? sql`trials.id in (select trial_id from temp.trial_search where trial_search match ${w})`
          : !queued
            ? indexed(w)
            : sql`((trials.id not in (select trial_id from main.trial_search_queue) and ${indexed(w)})
                or trials.id in (select trial_id from temp.trial_search_queued where trial_search_queued match ${w}))`;
      const terms = quotedWords(search);
      // Words of underscores only hold no term: they match nothing, as FTS5's empty phrase did.
      return terms.length === 0 ? sql<boolean>`0` : sql<boolean>`${sql.join(terms.map(one), sql` and `)}`;
    }
    const text = search.trim().slice(0, 500);
    return sql<boolean>`(to_tsvector('simple', coalesce(trials.final_answer, '')) @@ plainto_tsquery('simple', ${text})
      or exists (select 1 from calls c where c.trial_id = trials.id and to_tsvector('simple',
        coalesce((select string_agg(m ->> 'content', ' ') from jsonb_array_elements((${resolvedJsonSql(sql.ref("c.messages"))})::jsonb) m), '')
        || ' ' || coalesce(c.response_text, '')) @@ plainto_tsquery('simple', ${text})))`;
  }

  /**
   * Builds (first search) or extends (trials finished since) the run's FTS5 index in the temp
   * schema: one document per trial, its messages' contents, responses and final answer. Built in
   * slices of trials so other requests are served in between; one build at a time per run.
   */
  private indexForSearch(runId: string): Promise<void> {
    const running = this.indexing.get(runId) ?? Promise.resolve();
    const next = running.then(() => this.extendIndex(runId));
    this.indexing.set(
      runId,
      next.catch(() => {}),
    );
    return next;
  }

  private async extendIndex(runId: string): Promise<void> {
    const upTo = this.indexedUpTo.get(runId);
    if (upTo === undefined) {
      await sql`create virtual table if not exists temp.trial_search using fts5(trial_id unindexed, body)`.execute(
        this.db,
      );
    } else {
      // A retried (errored) trial is indexed again: drop its earlier document.
      await sql`delete from temp.trial_search where trial_id in
        (select id from trials where run_id = ${runId} and updated_at > ${upTo})`.execute(this.db);
    }
    const since = upTo ?? "";
    if (upTo !== undefined && !(await this.changedSince(runId, upTo))) return;
    const latest = await this.db
      .selectFrom("trials")
      .select((eb) => eb.fn.max("updated_at").as("latest"))
      .where("run_id", "=", runId)
      .executeTakeFirst();
    for (let after = ""; ; ) {
      const slice = await this.db
        .selectFrom("trials")
        .select("id")
        .where("run_id", "=", runId)
        .where("id", ">", after)
        .orderBy("id")
        .limit(INDEX_SLICE)
        .execute();
      if (slice.length === 0) break;
      const last = slice[slice.length - 1].id;
      await sql`insert into temp.trial_search (trial_id, body)
        select t.id, ${trialSearchBody("t")}
        from trials t where t.run_id = ${runId} and t.id > ${after} and t.id <= ${last}
          and t.status <> 'pending' and t.updated_at > ${since}`.execute(this.db);
      after = last;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.indexedUpTo.set(runId, String(latest?.latest ?? since));
  }

  private async changedSince(runId: string, upTo: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("trials")
      .select("id")
      .where("run_id", "=", runId)
      .where("updated_at", ">", upTo)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }
}

/** How a page's search reads: the stored index (its dense words), and whether trials wait in its queue. */
interface SearchIndex {
  stored: boolean;
  dense: ReadonlySet<string>;
  queued: boolean;
}

/** Documents from which a search word counts as dense (see denseWords). */
const DENSE_DOCUMENTS = 20_000;

/**
 * The search's words as FTS5 terms, each quoted so query syntax in user input (AND, NEAR, "-",
 * quotes) stays literal. FTS5 splits words at underscores, and the stored index keeps no positions
 * (detail=none), so `snake_case` is searched as its two terms, each anywhere in the trial.
 */
function quotedWords(search: string | undefined): string[] {
  const terms = searchWords(search).flatMap((w) => w.split("_").filter(Boolean));
  return [...new Set(terms)].map((w) => `"${w.replaceAll('"', '""')}"`);
}

/** A call's (alias c) checks JSON (texts.ts). */
const CHECKS = resolvedJsonSql(sql.ref("c.checks"));

/** Trials indexed per statement: small enough that a page request waits little behind a slice. */
const INDEX_SLICE = 2_000;

function withOutcome(s: TrialSelectQuery, outcome: OutcomeFilter): TrialSelectQuery {
  switch (outcome) {
    case "pass":
      return s.where("trials.status", "=", "finished").where("trials.score", "=", 1);
    case "fail":
      return s.where("trials.status", "=", "finished").where("trials.score", "=", 0);
    case "unscored":
      return s.where("trials.status", "=", "finished").where("trials.score", "is", null);
    case "errored":
    case "pending":
      return s.where("trials.status", "=", outcome);
  }
}

/** The search's words (letters and digits), at most 16, so a query stays cheap. */
export function searchWords(search: string | undefined): string[] {
  return (search ?? "").match(/[\p{L}\p{N}_]+/gu)?.slice(0, 16) ?? [];
}
