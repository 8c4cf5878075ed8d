/**
 * The analysis's large reads take their rows as arrays (array-rows.ts): on a real study store the
 * arrays hold exactly the values kysely's object rows hold, column by column in select order, for
 * the reads of every trial, of the calls' facts and of the tasks; and a query not marked still
 * gets objects from the same statement cache.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { arrayRows } from "../../src/run/store/array-rows.js";
import { CALL_FACT_COLUMNS, TRIAL_FACT_COLUMNS } from "../../src/run/store/kysely-store.js";
import type { StoreDatabase } from "../../src/run/store/schema.js";
import { reusingStatements } from "../../src/run/store/statement-cache.js";
import { RUN_ID, writeLargeStudy } from "../viewer/fixture.js";

function objectsAsArrays(rows: readonly Record<string, unknown>[], columns: readonly string[]): unknown[][] {
  const names = columns.map((c) => c.slice(c.lastIndexOf(".") + 1));
  return rows.map((row) => {
    assert.deepEqual(Object.keys(row), names, "kysely's row holds the selected columns in order");
    return names.map((n) => row[n]);
  });
}

describe("array rows", () => {
  it("hold the values of kysely's rows for the analysis's reads of a study store", async () => {
    const { dir } = await writeLargeStudy(240);
    const db = new Kysely<StoreDatabase>({
      dialect: new SqliteDialect({ database: reusingStatements(new Database(join(dir, "parallax.db"))) }),
    });
    try {
      const trials = db.selectFrom("trials").select(TRIAL_FACT_COLUMNS).where("run_id", "=", RUN_ID).orderBy("id");
      const objects = await trials.execute();
      assert.ok(objects.length >= 240, `trials read: ${objects.length}`);
      const arrays = await arrayRows(db, "sqlite", trials, TRIAL_FACT_COLUMNS);
      assert.ok(Array.isArray(arrays[0]), "a row is an array");
      assert.deepEqual(arrays, objectsAsArrays(objects, TRIAL_FACT_COLUMNS));
      // The same query unmarked, after the marked one: still objects.
      assert.deepEqual(await trials.execute(), objects);

      const ids = objects.slice(0, 100).map((t) => t.id);
      const calls = db
        .selectFrom("calls")
        .innerJoin("trials", "trials.id", "calls.trial_id")
        .select(CALL_FACT_COLUMNS)
        .where("trials.run_id", "=", RUN_ID)
        .where("calls.trial_id", "in", ids)
        .orderBy("calls.trial_id")
        .orderBy("calls.execution")
        .orderBy("calls.seq");
      const callObjects = await calls.execute();
      assert.ok(callObjects.length >= 100, `calls read: ${callObjects.length}`);
      assert.deepEqual(
        await arrayRows(db, "sqlite", calls, CALL_FACT_COLUMNS),
        objectsAsArrays(callObjects, CALL_FACT_COLUMNS),
      );

      const tasks = db.selectFrom("tasks").select(["hash", "task"]).orderBy("hash");
      const taskObjects = await tasks.execute();
      assert.ok(taskObjects.length > 0, "the study stored its tasks");
      assert.deepEqual(
        await arrayRows(db, "sqlite", tasks, ["hash", "task"]),
        objectsAsArrays(taskObjects, ["hash", "task"]),
      );

      // PostgreSQL's path reads the same arrays out of object rows.
      const viaObjects = { executeQuery: async () => ({ rows: objects }) } as unknown as Kysely<StoreDatabase>;
      assert.deepEqual(await arrayRows(viaObjects, "postgres", trials, TRIAL_FACT_COLUMNS), arrays);
    } finally {
      await db.destroy();
    }
  });
});
