/**
 * Migration 0009: prompt-cache token counts per call (GAIA App. M), where the provider reports
 * them; null elsewhere.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const callCacheTokens: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("calls").addColumn("cache_read_tokens", "integer").execute();
    await db.schema.alterTable("calls").addColumn("cache_write_tokens", "integer").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("calls").dropColumn("cache_read_tokens").execute();
    await db.schema.alterTable("calls").dropColumn("cache_write_tokens").execute();
  },
};
