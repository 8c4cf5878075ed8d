/**
 * Migration 0005: judge verdicts and blinding state in the store instead of loose JSON files: the
 * sealed mapping and the round's checks, the verdicts, the judge-call log, the blinding log.
 */
import { type Kysely, type Migration, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const judgements: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("blinding_rounds")
      .addColumn("run_id", "text", (c) => c.primaryKey().references("runs.id"))
      .addColumn("mapping", "text", (c) => c.notNull())
      .addColumn("sealed_sha256", "text", (c) => c.notNull())
      .addColumn("sealed_at", "text", (c) => c.notNull())
      .addColumn("entries", "integer", (c) => c.notNull())
      .addColumn("judge", "text")
      .addColumn("verdicts_sha256", "text")
      .addColumn("responses", "integer")
      .addColumn("guessing_check", "text")
      .addColumn("agreement", "text")
      .addColumn("unblinded_at", "text")
      .execute();
    await db.schema
      .createTable("judge_verdicts")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("ord", "integer", (c) => c.notNull())
      .addColumn("uuid", "text", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('primary', 'validation')`))
      .addColumn("judge", "text", (c) => c.notNull())
      .addColumn("rubric", "text", (c) => c.notNull())
      .addColumn("benchmark", "text", (c) => c.notNull())
      .addColumn("ok", "integer", (c) => c.notNull())
      .addColumn("label", "text")
      .addColumn("confidence", "double precision")
      .addColumn("justification", "text")
      .addColumn("outcome", "double precision")
      .addColumn("error", "text")
      .addColumn("trial_id", "text", (c) => c.references("trials.id"))
      .addPrimaryKeyConstraint("judge_verdicts_pk", ["run_id", "ord"])
      .execute();
    for (const table of ["judge_calls", "blinding_log"]) {
      let builder = db.schema
        .createTable(table)
        .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
        .addColumn("seq", "integer", (c) => c.notNull());
      if (table === "blinding_log") {
        builder = builder.addColumn("at", "text", (c) => c.notNull()).addColumn("event", "text", (c) => c.notNull());
      }
      await builder
        .addColumn("record", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint(`${table}_pk`, ["run_id", "seq"])
        .execute();
    }
  },
  async down(db: AnyDb) {
    for (const table of ["blinding_log", "judge_calls", "judge_verdicts", "blinding_rounds"]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
