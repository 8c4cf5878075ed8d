/**
 * The SQLite store's search index (migrations 0022 and 0023): a contentless FTS5 table of what the
 * viewer's trial search reads, with one document per trial written after the fact. Writers only
 * queue a trial whose text changed (a trigger, one small insert); the queue is indexed in bulk
 * (`indexSearchQueue`) every few thousand queued trials and when a run's writes end, since FTS5
 * pays per transaction for every small set of documents (about 4x the cost per document).
 * The viewer searches a still-queued trial through a temp index of the queue (browse.ts).
 */
import { type Kysely, sql } from "kysely";
import { resolvedJsonSql } from "./texts.js";

// biome-ignore lint/suspicious/noExplicitAny: shared by the migrations (Kysely<any>) and the store
type AnyDb = Kysely<any>;

/** Trials indexed per transaction: short enough that other writers and readers wait little. */
const INDEX_SLICE = 1_000;

/**
 * A trial's searchable text (alias t): its final answer once it is no longer pending, then each
 * call's message contents and response text.
 */
export function trialSearchBody(alias: string) {
  const t = sql.raw(alias);
  return sql<string>`(case when ${t}.status <> 'pending' then coalesce(${t}.final_answer, '') else '' end) || ' ' ||
    coalesce((select group_concat(coalesce((select group_concat(json_extract(m.value, '$.content'), ' ')
      from json_each(${resolvedJsonSql(sql.ref("c.messages"))}) m), '') || ' ' || coalesce(c.response_text, ''), ' ')
    from calls c where c.trial_id = ${t}.id), '')`;
}

/** Indexes every queued trial (its old documents replaced by one of its current text); returns how many. */
export async function indexSearchQueue(db: AnyDb): Promise<number> {
  let indexed = 0;
  for (;;) {
    const slice = await db.transaction().execute(async (trx) => {
      // A write first takes SQLite's write lock (waiting out other writers) before the queue is
      // read: a read first could go stale under another process and fail with SQLITE_BUSY.
      await sql`delete from trial_search_queue where 0`.execute(trx);
      const { rows } = await sql<{ trial_id: string }>`select trial_id from trial_search_queue
        order by seq limit ${INDEX_SLICE}`.execute(trx);
      if (rows.length === 0) return 0;
      const ids = sql.join(rows.map((r) => r.trial_id));
      await sql`delete from trial_search where rowid in
        (select id from trial_search_docs where trial_id in (${ids}))`.execute(trx);
      await sql`delete from trial_search_docs where trial_id in (${ids})`.execute(trx);
      await sql`insert into trial_search_docs (trial_id, answer) select id, 0 from trials where id in (${ids})`.execute(
        trx,
      );
      await sql`insert into trial_search (rowid, body) select d.id, ${trialSearchBody("t")}
        from trial_search_docs d join trials t on t.id = d.trial_id where d.trial_id in (${ids})`.execute(trx);
      await sql`delete from trial_search_queue where trial_id in (${ids})`.execute(trx);
      return rows.length;
    });
    if (slice === 0) return indexed;
    indexed += slice;
  }
}

/** Whether the store has the search queue (migration 0023). */
export async function hasSearchQueue(db: AnyDb): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master
    where name = 'trial_search_queue'`.execute(db);
  return Number(rows[0]?.n ?? 0) > 0;
}
