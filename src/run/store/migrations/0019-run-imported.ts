/**
 * Migration 0019: what an imported run was imported from (the format, and the provenance of the
 * Parallax exports it read), as JSON; null for a run Parallax executed. Exports carry it on, so
 * a simulated study stays labelled as such through export and import.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const runImported: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("runs").addColumn("imported", "text").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("runs").dropColumn("imported").execute();
  },
};
