/**
 * Migration 0012: the shared budget: one counter row per run, charged before a call is made
 * (reserve, then settle with the real cost), and the reservations of calls in flight.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const runBudget: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("run_budget")
      .addColumn("run_id", "text", (c) => c.primaryKey().references("runs.id"))
      .addColumn("used_calls", "bigint", (c) => c.notNull())
      .addColumn("used_cost_usd", "double precision", (c) => c.notNull())
      .addColumn("reserved_calls", "bigint", (c) => c.notNull())
      .addColumn("reserved_cost_usd", "double precision", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("budget_reservations")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("holder", "text", (c) => c.notNull())
      .addColumn("calls", "integer", (c) => c.notNull())
      .addColumn("cost_usd", "double precision", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("budget_reservations_holder").on("budget_reservations").column("holder").execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("budget_reservations").ifExists().execute();
    await db.schema.dropTable("run_budget").ifExists().execute();
  },
};
