/**
 * Migration 0006: per-call checks as one JSON column: a new auditor needs no new column.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const callChecks: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("calls").addColumn("checks", "text").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("calls").dropColumn("checks").execute();
  },
};
