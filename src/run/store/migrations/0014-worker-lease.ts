/**
 * Migration 0014: each worker's lease length, so `status` can tell a worker that stopped
 * heartbeating (killed) from one that is alive: its heartbeat is older than its lease.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const workerLease: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("workers").addColumn("lease_ms", "bigint").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("workers").dropColumn("lease_ms").execute();
  },
};
