/**
 * Migration 0017: the plugin modules a run loaded, each with its content and SHA-256, so that a
 * worker joining by URL loads the same code as the run: the file it can reach is checked against
 * the hash, and the stored content stands in where no file is reachable.
 */
import type { Kysely, Migration } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const runPlugins: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("run_plugins")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("position", "integer", (c) => c.notNull())
      .addColumn("specifier", "text", (c) => c.notNull())
      .addColumn("file", "text", (c) => c.notNull())
      .addColumn("sha256", "text", (c) => c.notNull())
      .addColumn("content", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("run_plugins_pk", ["run_id", "position"])
      .execute();
  },
  async down(db: AnyDb) {
    await db.schema.dropTable("run_plugins").ifExists().execute();
  },
};
