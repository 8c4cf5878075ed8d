/**
 * Migration 0016: the folder of the spec a run was recorded from, so that relative paths in the
 * spec (a GGUF model, a judge's model) resolve the same way for `worker` and `score` as for
 * `plan` and `run`: against the spec's folder.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const runSpecDir: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("runs").addColumn("spec_dir", "text").execute();
  },
  async down(db: AnyDb) {
    await db.schema.alterTable("runs").dropColumn("spec_dir").execute();
  },
};
