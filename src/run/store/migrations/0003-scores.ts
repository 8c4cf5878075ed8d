/**
 * Migration 0003: scores of stored trials by any scorer, so scorers can be compared on the same
 * responses.
 */
import { type Kysely, type Migration, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const scores: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("scores")
      .addColumn("trial_id", "text", (c) => c.notNull().references("trials.id"))
      .addColumn("scorer", "text", (c) => c.notNull())
      .addColumn("version", "text", (c) => c.notNull())
      .addColumn("parsed_answer", "text")
      .addColumn("parse_status", "text", (c) =>
        c.notNull().check(sql`parse_status in ('ok', 'failed', 'not_applicable')`),
      )
      .addColumn("score", "double precision")
      .addColumn("details", "text")
      .addColumn("created_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("scores_pk", ["trial_id", "scorer", "version"])
      .execute();
    // Export by scorer: all scores of one scorer, joined to a page of trials.
    await db.schema.createIndex("scores_scorer_trial").on("scores").columns(["scorer", "trial_id"]).execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("scores").ifExists().execute();
  },
};
