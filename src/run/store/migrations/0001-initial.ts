/**
 * Migration 0001: the runs, the trials, the calls and the response cache.
 */
import { type Kysely, type Migration, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

export const initial: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("runs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("study", "text", (c) => c.notNull())
      .addColumn("spec_hash", "text", (c) => c.notNull())
      .addColumn("manifest_hash", "text", (c) => c.notNull())
      .addColumn("spec", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .addColumn("parallax_version", "text", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("trials")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("model_id", "text", (c) => c.notNull())
      .addColumn("benchmark_id", "text", (c) => c.notNull())
      .addColumn("item_id", "text", (c) => c.notNull())
      .addColumn("condition_hash", "text", (c) => c.notNull())
      .addColumn("condition", "text", (c) => c.notNull())
      .addColumn("attempt", "integer", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending', 'finished', 'errored')`))
      .addColumn("executions", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("final_answer", "text")
      .addColumn("parsed_answer", "text")
      .addColumn("parse_status", "text")
      .addColumn("score", "double precision")
      .addColumn("scorer", "text")
      .addColumn("failure_bucket", "text")
      .addColumn("error_message", "text")
      .addColumn("input_tokens", "bigint")
      .addColumn("output_tokens", "bigint")
      .addColumn("cost_usd", "double precision")
      .addColumn("latency_ms", "double precision")
      .addColumn("dropped_params", "text")
      .addColumn("simulated", "integer")
      .addColumn("updated_at", "text")
      .execute();
    // Listing a run's trials (optionally by status) in id order, paging by id, counting by status.
    await db.schema.createIndex("trials_run_status_id").on("trials").columns(["run_id", "status", "id"]).execute();
    await db.schema.createIndex("trials_run_id").on("trials").columns(["run_id", "id"]).execute();

    await db.schema
      .createTable("calls")
      .addColumn("trial_id", "text", (c) => c.notNull().references("trials.id"))
      .addColumn("execution", "integer", (c) => c.notNull())
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("messages", "text", (c) => c.notNull())
      .addColumn("params_used", "text", (c) => c.notNull())
      .addColumn("dropped_params", "text", (c) => c.notNull())
      .addColumn("response_text", "text")
      .addColumn("tool_calls", "text")
      .addColumn("finish_reason", "text")
      .addColumn("input_tokens", "bigint", (c) => c.notNull())
      .addColumn("output_tokens", "bigint", (c) => c.notNull())
      .addColumn("cost_usd", "double precision", (c) => c.notNull())
      .addColumn("latency_ms", "double precision", (c) => c.notNull())
      .addColumn("cached", "integer", (c) => c.notNull())
      .addColumn("error_bucket", "text")
      .addColumn("error_message", "text")
      .addColumn("started_at", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("calls_pk", ["trial_id", "execution", "seq"])
      .execute();

    await db.schema
      .createTable("cache")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("value", "text", (c) => c.notNull())
      .addColumn("created_at", "text", (c) => c.notNull())
      .execute();
  },
  async down(db: AnyDb) {
    for (const table of ["cache", "calls", "trials", "runs"]) await db.schema.dropTable(table).ifExists().execute();
  },
};
