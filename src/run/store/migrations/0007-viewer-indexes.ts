/**
 * Migration 0007: indexes for browsing: a run's (model, benchmark, condition) groups and the trials
 * of one item. Written only when trials are planned (completing a trial changes none of their
 * columns), so `run`'s completion writes are unaffected.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const viewerIndexes: Migration = {
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
