/**
 * Migration 0010: which weights answered each trial: a GGUF's SHA-256 or the provider's model
 * version.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const trialModelRevision: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("trials").addColumn("model_revision", "text").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("trials").dropColumn("model_revision").execute();
  },
};
