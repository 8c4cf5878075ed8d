/**
 * Migration 0011: batch mode: every submitted provider batch, recorded before it is polled, and
 * each request's outcome, stored once when its batch ends, so a resumed run polls instead of
 * resubmitting and never reads a result twice.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const providerBatches: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("provider_batches")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("batch_id", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("model_id", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("provider_status", "text")
      .addColumn("requests", "integer", (c) => c.notNull())
      .addColumn("submitted_at", "text", (c) => c.notNull())
      .addColumn("ended_at", "text")
      .addPrimaryKeyConstraint("provider_batches_pk", ["run_id", "batch_id"])
      .execute();
    await db.schema
      .createTable("batch_requests")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("custom_id", "text", (c) => c.notNull())
      .addColumn("batch_id", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("submissions", "integer", (c) => c.notNull())
      .addColumn("result", "text")
      .addColumn("error", "text")
      .addColumn("updated_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("batch_requests_pk", ["run_id", "custom_id"])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("batch_requests").ifExists().execute();
    await db.schema.dropTable("provider_batches").ifExists().execute();
  },
};
