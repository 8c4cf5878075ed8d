/**
 * Migration 0020: the interim looks of a sequential run, one row per look analysed: its
 * statistics, boundaries and decisions as JSON. A resumed run reads them and continues after
 * the last look (or not at all, once it stopped), so no look is analysed or paid for twice.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const sequentialLooks: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("sequential_looks")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("look", "integer", (c) => c.notNull())
      .addColumn("record", "text", (c) => c.notNull())
      .addColumn("recorded_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("sequential_looks_pk", ["run_id", "look"])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("sequential_looks").ifExists().execute();
  },
};
