/**
 * Migration 0004: what each trial was sent: the rendered task, stored once per distinct task (many
 * trials share one: models x attempts) and referenced from the trial by hash.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const trialTask: Migration = {
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
