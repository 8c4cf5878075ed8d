/**
 * Migration 0023: the search index is written in bulk, not as each call is stored. Migration
 * 0022's triggers tokenised every call inside the run's small write transactions, which cost
 * FTS5 a new segment and its merges per commit and cut the runner's throughput by a third.
 * Now a trigger only queues the trial whose searchable text changed (a new call, a new or
 * withdrawn final answer), and the store indexes the queue in bulk (search-index.ts): one
 * document per trial, replacing the trial's earlier ones (0022 wrote one per call and answer).
 *
 * PostgreSQL: nothing (it has no index; browse.ts evaluates its text search in the query).
 */
import { type Kysely, type Migration, sql } from "kysely";
import { indexSearchQueue } from "../search-index.js";
import { createSearchTriggers, isPostgres } from "./0022-trial-search.js";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const searchQueue: Migration = {
  async up(db: AnyDb) {
    if (isPostgres(db)) return;
    await sql`drop trigger if exists trial_search_answer`.execute(db);
    await sql`drop trigger if exists trial_search_call`.execute(db);
    // seq only grows and a queued trial that changes again is queued anew (`or replace`), so the
    // queue's count and top seq tell the viewer whether its temp index of the queue is current.
    await sql`create table trial_search_queue (seq integer primary key autoincrement,
      trial_id text not null unique)`.execute(db);
    await sql`create trigger trial_search_queue_call after insert on calls begin
      insert or replace into trial_search_queue (trial_id) values (new.trial_id);
    end`.execute(db);
    // Only when the trial has or had an answer document (not on a pending trial's claim).
    await sql`create trigger trial_search_queue_answer after update of status, final_answer on trials
      when (new.status <> 'pending' and new.final_answer is not null)
        or (old.status <> 'pending' and old.final_answer is not null) begin
      insert or replace into trial_search_queue (trial_id) values (new.id);
    end`.execute(db);
  },
  async down(db: AnyDb) {
    if (isPostgres(db)) return;
    // Index what is queued, then go back to indexing as calls are written.
    await indexSearchQueue(db);
    await sql`drop trigger if exists trial_search_queue_answer`.execute(db);
    await sql`drop trigger if exists trial_search_queue_call`.execute(db);
    await sql`drop table if exists trial_search_queue`.execute(db);
    await createSearchTriggers(db);
  },
};
