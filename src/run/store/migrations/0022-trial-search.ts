/**
 * Migration 0022: a full-text index of what the viewer's trial search reads (each call's message
 * contents and response text, and the trial's final answer), so a search of a 500k-trial run is
 * an index lookup, not a scan. It is kept in step as trials and calls are written, and filled
 * here for the trials already stored.
 *
 * SQLite: a contentless FTS5 table (the text already lives in calls and trials), one document
 * per call and one per final answer of a non-pending trial, written by triggers; the table
 * trial_search_docs names each document's trial. A trial matches when each search word occurs in
 * one of its documents: the same hits as one document of the whole trial, since no word spans two
 * parts. Without token positions (detail=none): the search asks for words, never phrases.
 *
 * PostgreSQL: nothing; the search evaluates its text-search expressions in the query (browse.ts).
 */
import { type Kysely, type Migration, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

/**
 * A call's searchable text on SQLite: its messages' contents, then its response. The messages
 * column holds their JSON or a reference to it in `texts` (texts.ts, resolvedJsonSql).
 */
const SQLITE_CALL_TEXT = (alias: string) =>
  sql.raw(`coalesce((select group_concat(json_extract(m.value, '$.content'), ' ')
    from json_each(case when substr(${alias}.messages, 1, 1) = '@'
      then (select x.text from texts x where x.key = substr(${alias}.messages, 2)) else ${alias}.messages end) m), '')
    || ' ' || coalesce(${alias}.response_text, '')`);

export const trialSearch: Migration = {
  async up(db: AnyDb) {
    // PostgreSQL: the search evaluates its text-search expressions in the query (browse.ts).
    if (isPostgres(db)) return;
    // Which trial each document belongs to (answer = 1: its final answer), under an explicit
    // integer key, which VACUUM keeps (it may renumber the implicit rowids of calls and trials).
    await sql`create table trial_search_docs (id integer primary key, trial_id text not null,
      answer integer not null)`.execute(db);
    // By trial: a trial's documents (a dense search word is checked trial by trial; a new final answer replaces the old).
    await sql`create index trial_search_docs_trial on trial_search_docs (trial_id, answer)`.execute(db);
    await sql`create virtual table trial_search using fts5(body, content='', contentless_delete=1, detail=none)`.execute(
      db,
    );
    await createSearchTriggers(db);
    // Existing calls keep their rowids as document ids; final answers are numbered after them.
    await sql`insert into trial_search_docs (id, trial_id, answer) select rowid, trial_id, 0 from calls`.execute(db);
    await sql`insert into trial_search (rowid, body) select c.rowid, ${SQLITE_CALL_TEXT("c")} from calls c`.execute(db);
    await sql`insert into trial_search_docs (trial_id, answer)
      select id, 1 from trials where status <> 'pending' and final_answer is not null`.execute(db);
    await sql`insert into trial_search (rowid, body) select d.id, t.final_answer
      from trial_search_docs d join trials t on t.id = d.trial_id where d.answer = 1`.execute(db);
  },
  async down(db: AnyDb) {
    if (isPostgres(db)) return;
    await sql`drop trigger if exists trial_search_answer`.execute(db);
    await sql`drop trigger if exists trial_search_call`.execute(db);
    await sql`drop table if exists trial_search`.execute(db);
    await sql`drop table if exists trial_search_docs`.execute(db);
  },
};

/** The triggers that index each call and final answer as it is written (replaced by 0023's queue). */
export async function createSearchTriggers(db: AnyDb): Promise<void> {
  await sql`create trigger trial_search_call after insert on calls begin
      insert into trial_search_docs (trial_id, answer) values (new.trial_id, 0);
      insert into trial_search (rowid, body) values (last_insert_rowid(), ${SQLITE_CALL_TEXT("new")});
    end`.execute(db);
  await sql`create trigger trial_search_answer after update of status, final_answer on trials begin
      delete from trial_search where rowid in (select id from trial_search_docs where trial_id = old.id and answer = 1);
      delete from trial_search_docs where trial_id = old.id and answer = 1;
      insert into trial_search_docs (trial_id, answer) select new.id, 1
        where new.status <> 'pending' and new.final_answer is not null;
      insert into trial_search (rowid, body)
        select id, new.final_answer from trial_search_docs where trial_id = new.id and answer = 1;
    end`.execute(db);
}

/** PostgreSQL numbers its parameters ($1); SQLite writes `?` (the dialect, through public API). */
export function isPostgres(db: AnyDb): boolean {
  return db.selectFrom("runs").select("id").where("id", "=", "").compile().sql.includes("$1");
}
