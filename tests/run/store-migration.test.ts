/**
 * Migration 0021 (shared texts) on a store in the old layout: a study is run, its store taken
 * back to migration 0020 (every condition, message, parameter list, note and task inline, the
 * texts table gone), rows written the old way are added (strings that start with `@`, a task
 * whose keys JSON would reorder, tool calls), and the store migrated again. Every export (csv,
 * jsonl, parquet and eee, trials and calls) and every trial's calls and task read the same
 * before and after, and the same as the store written in the new layout; on SQLite and on
 * PostgreSQL.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { conditionColumns } from "../../src/facets/registry.js";
import { exportEee } from "../../src/interop/eee/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { exportTable } from "../../src/run/export/export.js";
import { exportParquet } from "../../src/run/export/parquet.js";
import type { KyselyTrialStore } from "../../src/run/store/kysely-store.js";
import { openStore } from "../../src/run/store/open.js";
import type { StoreDatabase } from "../../src/run/store/schema.js";
import type { TrialRow, TrialStore } from "../../src/run/store/types.js";
import { dropTestSchemas, testStoreUrl } from "../helpers/postgres-run.js";
import { after, describeNeeding, needsPostgres, test } from "../helpers/prerequisites.js";
import { writeDemoSpec } from "../helpers/study.js";

const OLD_LAYOUT = "0020_sequential_looks";

function dbOf(store: TrialStore): Kysely<StoreDatabase> {
  return (store as unknown as { db: Kysely<StoreDatabase> }).db;
}

/** Everything a reader sees of the run: the exports in every format and the records. */
async function snapshot(store: TrialStore, target: string): Promise<Record<string, unknown>> {
  const run = (await store.getRun())!;
  const facets = conditionColumns(run.spec.conditions);
  const out: Record<string, unknown> = {};
  for (const table of ["trials", "calls"] as const) {
    for (const format of ["csv", "jsonl"] as const) {
      const chunks: string[] = [];
      await exportTable(store, { runId: run.id, facets, table, format }, (c) => chunks.push(c));
      out[`${table}.${format}`] = chunks.join("");
    }
    const file = join(mkdtempSync(join(tmpdir(), "parallax-migration-")), `${table}.parquet`);
    await exportParquet(store, { runId: run.id, facets, table }, file);
    out[`${table}.parquet`] = readFileSync(file).toString("base64");
  }
  const eeeDir = mkdtempSync(join(tmpdir(), "parallax-migration-eee-"));
  await exportEee({ target, store, run }, eeeDir, { now: new Date("2026-01-01T00:00:00Z") });
  for (const name of readdirSync(eeeDir, { recursive: true, encoding: "utf8" }).sort()) {
    if (name.includes(".")) out[`eee/${name}`] = readFileSync(join(eeeDir, name), "utf8");
  }
  const trials = await store.listTrials(run.id);
  out.trials = trials;
  out.calls = await store.listCalls(run.id);
  const tasks = await store.getTasks(trials.flatMap((t) => (t.taskHash ? [t.taskHash] : [])));
  out.tasks = [...tasks].sort(([a], [b]) => (a < b ? -1 : 1));
  return out;
}

/** A trial, its calls and its task added in the old layout: every JSON column inline. */
async function addOldRows(db: Kysely<StoreDatabase>): Promise<void> {
  const model = await db.selectFrom("trials").selectAll().where("status", "=", "finished").orderBy("id").limit(1);
  const trial = await model.executeTakeFirstOrThrow();
  const call = await db.selectFrom("calls").selectAll().where("trial_id", "=", trial.id).executeTakeFirstOrThrow();
  // Canonical JSON sorts "10" before "2", JSON.parse puts integer-like keys first: this task
  // cannot be encoded and stays inline; the other one is encoded, its `@` strings escaped.
  const parts = `"options":["@a","@@b","${"a".repeat(80)}"],"question":"@mention: a string that starts with the reference sign, long enough to be shared","short":"@x"`;
  const tasks = [`{"10":"ten","2":"two",${parts}}`, `{"answer":{"@":"@@"},${parts}}`];
  for (const [i, task] of tasks.entries()) {
    const hash = String(i).repeat(64);
    const id = `old-layout-trial-00000${i}`;
    await db
      .insertInto("trials")
      .values({ ...trial, id, attempt: trial.attempt + 1 + i, task_hash: hash })
      .execute();
    await db.insertInto("tasks").values({ hash, task }).execute();
  }
  const messages = [
    { role: "system", content: "@system prompt that starts with the reference sign and is long enough" },
    { role: "user", content: 'Ünïcödé ✓ and a lone \ud800 surrogate, plus "quotes" and \\ backslashes' },
  ];
  await db
    .insertInto("calls")
    .values({
      ...call,
      trial_id: "old-layout-trial-000000",
      messages: JSON.stringify(messages),
      params_used: JSON.stringify({ temperature: 0.7, maxTokens: 256, stop: ["@end", "\n\n"] }),
      tool_calls: JSON.stringify([{ id: "t1", name: "search", arguments: { q: "@who" } }]),
      note: JSON.stringify({ logprob: { tokens: [["@", -0.5]] }, text: "n".repeat(100) }),
    })
    .execute();
}

async function countRefs(db: Kysely<StoreDatabase>): Promise<Record<string, number>> {
  const count = async (table: string, column: string) => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}
      where substr(${sql.ref(column)}, 1, 1) = '@'`.execute(db);
    return Number(rows[0].n);
  };
  return {
    conditions: await count("trials", "condition"),
    messages: await count("calls", "messages"),
    params: await count("calls", "params_used"),
    tasks: await count("tasks", "task"),
  };
}

async function roundTrip(storeUrl?: string): Promise<void> {
  const { specPath, outDir } = writeDemoSpec({
    items: 6,
    facets: "    format: [mc, oe]\n    scaffold: [direct]",
    models: `  - id: sim-a
    provider: sim
    model: medium
    params: { temperature: 0 }
  - id: sim-b
    provider: sim
    model: weak
    params: { temperature: 0.5 }`,
  });
  const result = await runStudy({ specPath, outDir, env: {}, ...(storeUrl ? { store: storeUrl } : {}) });
  assert.equal(result.counts.finished, 24);
  // The study's store, and what eee export is pointed at.
  const target = storeUrl ?? outDir;
  const store = (await openStore(target)) as KyselyTrialStore;
  try {
    const db = dbOf(store);
    assert.deepEqual(await countRefs(db), { conditions: 24, messages: 24, params: 24, tasks: 12 }, "written shared");
    const newLayout = await snapshot(store, target);
    const runItems = await store.listRunItems((await store.getRun())!.id);
    assert.ok(runItems.length > 0, "the run stored its items");

    await store.migrate(OLD_LAYOUT);
    assert.deepEqual(await countRefs(db), { conditions: 0, messages: 0, params: 0, tasks: 0 }, "every row inline");
    await assert.rejects(db.selectFrom("texts").selectAll().execute(), "the texts table is gone");
    await addOldRows(db);
    const before = await snapshot(store, target);
    assert.equal((before.calls as unknown[]).length, 25);
    assert.equal((before.trials as unknown[]).length, 26);

    await store.migrate();
    const migrated = await countRefs(db);
    // Every trial shares its condition, every call its messages; the old task whose keys JSON
    // reorders stays inline.
    assert.deepEqual(migrated, { conditions: 26, messages: 25, params: 25, tasks: 13 });
    const afterMigration = await snapshot(store, target);
    assert.deepEqual(await store.listRunItems((await store.getRun())!.id), runItems, "the run's items unchanged");
    for (const key of Object.keys(before)) assert.deepEqual(afterMigration[key], before[key], `${key} unchanged`);
    assert.deepEqual(Object.keys(afterMigration), Object.keys(before));
    // The rows written in the new layout read as they did before the round trip (the added
    // trials sort last: their ids are not hex).
    assert.deepEqual((before.trials as unknown[]).slice(0, -2), newLayout.trials, "trials as written");
    assert.deepEqual((before.calls as unknown[]).slice(0, -1), newLayout.calls, "calls as written");
    const added = (before.trials as TrialRow[]).slice(-2).map((t) => t.taskHash);
    const tasksWritten = (before.tasks as [string, unknown][]).filter(([hash]) => !added.includes(hash));
    assert.deepEqual(tasksWritten, newLayout.tasks, "tasks as written");
  } finally {
    await store.close();
  }
}

test("SQLite: migrating a store in the old layout changes no export, call or task", () => roundTrip());

describeNeeding(needsPostgres(), "the shared-texts migration on PostgreSQL", () => {
  after(() => dropTestSchemas());
  test("PostgreSQL: migrating a store in the old layout changes no export, call or task", () =>
    roundTrip(testStoreUrl("parallax_texts")));
});
