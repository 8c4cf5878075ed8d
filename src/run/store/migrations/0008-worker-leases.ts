/**
 * Migration 0008: scale-out: a lease per trial (its worker and expiry), the run's workers, and the
 * run's items in the store, so workers on other machines can execute its trials.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const workerLeases: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("trials").addColumn("lease_owner", "text").execute();
    await db.schema.alterTable("trials").addColumn("lease_expires_at", "bigint").execute();
    await db.schema
      .createTable("workers")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("host", "text", (c) => c.notNull())
      .addColumn("pid", "integer", (c) => c.notNull())
      .addColumn("parallax_version", "text", (c) => c.notNull())
      .addColumn("started_at", "text", (c) => c.notNull())
      .addColumn("heartbeat_at", "bigint", (c) => c.notNull())
      .addColumn("in_flight", "integer", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("run_items")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("benchmark", "text", (c) => c.notNull())
      .addColumn("item_id", "text", (c) => c.notNull())
      .addColumn("item", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("run_items_pk", ["run_id", "benchmark", "item_id"])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("run_items").ifExists().execute();
    await db.schema.dropTable("workers").ifExists().execute();
    await db.schema.alterTable("trials").dropColumn("lease_expires_at").execute();
    await db.schema.alterTable("trials").dropColumn("lease_owner").execute();
  },
};
