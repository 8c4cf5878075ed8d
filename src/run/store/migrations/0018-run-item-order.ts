/**
 * Migration 0018: the order in which a run's items and exemplar pools were loaded. A few-shot
 * draw is a seeded shuffle of the pool in its loaded order, so a worker joining by URL must read
 * the pool back in that order to draw the exemplars the run drew.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const runItemOrder: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("run_items").addColumn("position", "integer").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("run_items").dropColumn("position").execute();
  },
};
