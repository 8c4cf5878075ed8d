/**
 * Migration 0015: the analysis record of a run, kept in the store, so that a study on
 * PostgreSQL (no study directory) can be analysed once and reported from the store alone.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const analyses: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("analyses")
      .addColumn("run_id", "text", (c) => c.primaryKey().references("runs.id"))
      .addColumn("record", "text", (c) => c.notNull())
      .addColumn("written_at", "text", (c) => c.notNull())
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("analyses").ifExists().execute();
  },
};
