/**
 * Migration 0013 (issue 16): batch submissions recorded before the provider is called. Each
 * submission has a client token that tags the provider's batch (OpenAI metadata and file name,
 * Gemini display name, Anthropic custom ids), so a run killed between the provider accepting a
 * batch and the store recording its id finds the batch by its token instead of paying for it
 * twice. batch_requests gains the token of each request's latest submission.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const batchSubmissions: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("batch_submissions")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("token", "text", (c) => c.notNull())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("model_id", "text", (c) => c.notNull())
      .addColumn("model", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("batch_id", "text")
      .addColumn("requests", "integer", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("batch_submissions_pk", ["run_id", "token"])
      .execute();
    await db.schema.alterTable("batch_requests").addColumn("token", "text").execute();
    await db.schema.createIndex("batch_requests_token").on("batch_requests").columns(["run_id", "token"]).execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropIndex("batch_requests_token").ifExists().execute();
    await db.schema.alterTable("batch_requests").dropColumn("token").execute();
    await db.schema.dropTable("batch_submissions").ifExists().execute();
  },
};
