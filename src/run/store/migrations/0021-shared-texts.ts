/**
 * Migration 0021: the content-addressed `texts` table (texts.ts). A trial's condition, a call's
 * messages, parameters, note and checks, and a task's shared parts (few-shot blocks, templates, item text)
 * are stored once there and referenced from their rows; existing rows are converted in place, a
 * slice at a time.
 */
import type { Kysely, Migration } from "kysely";
import { encodeTask, insertTexts, jsonOf, type NewTexts, refOf, sharedJson, TextReader } from "../texts.js";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

/** Rows converted per statement batch. */
const SLICE = 2_000;

export const sharedTexts: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("texts")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("text", "text", (c) => c.notNull())
      .execute();
    await convertTrials(db);
    await convertCalls(db);
    await convertTasks(db);
  },
  async down(db: AnyDb) {
    await restoreTrials(db);
    await restoreCalls(db);
    await restoreTasks(db);
    await db.schema.dropTable("texts").ifExists().execute();
  },
};

interface CallKeyRow {
  trial_id: string;
  execution: number;
  seq: number;
  messages: string;
  params_used: string;
  note: string | null;
  checks: string | null;
}

/** The calls in primary-key order, a slice at a time (keyset paging: works alike on both dialects). */
async function* callSlices(db: AnyDb): AsyncGenerator<CallKeyRow[]> {
  let after: CallKeyRow | undefined;
  for (;;) {
    let query = db
      .selectFrom("calls")
      .select(["trial_id", "execution", "seq", "messages", "params_used", "note", "checks"])
      .orderBy("trial_id")
      .orderBy("execution")
      .orderBy("seq")
      .limit(SLICE);
    if (after) {
      const a = after;
      query = query.where((eb) =>
        eb.or([
          eb("trial_id", ">", a.trial_id),
          eb.and([eb("trial_id", "=", a.trial_id), eb("execution", ">", a.execution)]),
          eb.and([eb("trial_id", "=", a.trial_id), eb("execution", "=", a.execution), eb("seq", ">", a.seq)]),
        ]),
      );
    }
    const rows = (await query.execute()) as CallKeyRow[];
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1];
  }
}

/** `work` in a transaction (one per slice on SQLite, where kysely runs migrations outside one). */
function inTransaction(db: AnyDb, work: (trx: AnyDb) => Promise<void>): Promise<void> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

async function updateCall(db: AnyDb, row: CallKeyRow, set: Partial<CallKeyRow>): Promise<void> {
  await db
    .updateTable("calls")
    .set(set)
    .where("trial_id", "=", row.trial_id)
    .where("execution", "=", row.execution)
    .where("seq", "=", row.seq)
    .execute();
}

function changed(row: CallKeyRow, set: Omit<CallKeyRow, "trial_id" | "execution" | "seq">): boolean {
  return (
    set.messages !== row.messages ||
    set.params_used !== row.params_used ||
    set.note !== row.note ||
    set.checks !== row.checks
  );
}

async function convertCalls(db: AnyDb): Promise<void> {
  for await (const rows of callSlices(db)) {
    const texts: NewTexts = new Map();
    const changes: Array<[CallKeyRow, Partial<CallKeyRow>]> = [];
    for (const row of rows) {
      const set = {
        messages: sharedJson(row.messages, texts),
        params_used: sharedJson(row.params_used, texts),
        note: row.note === null ? null : sharedJson(row.note, texts),
        checks: row.checks === null ? null : sharedJson(row.checks, texts),
      };
      if (changed(row, set)) {
        changes.push([row, set]);
      }
    }
    await inTransaction(db, async (trx) => {
      await insertTexts(trx, texts);
      for (const [row, set] of changes) await updateCall(trx, row, set);
    });
  }
}

async function restoreCalls(db: AnyDb): Promise<void> {
  const reader = new TextReader(db);
  for await (const rows of callSlices(db)) {
    const keys = rows.flatMap((r) => [refOf(r.messages), refOf(r.params_used), refOf(r.note), refOf(r.checks)]);
    const texts = await reader.texts(keys.filter((k): k is string => k !== undefined));
    await inTransaction(db, async (trx) => {
      for (const row of rows) {
        const set = {
          messages: jsonOf(row.messages, texts),
          params_used: jsonOf(row.params_used, texts),
          note: row.note === null ? null : jsonOf(row.note, texts),
          checks: row.checks === null ? null : jsonOf(row.checks, texts),
        };
        if (changed(row, set)) {
          await updateCall(trx, row, set);
        }
      }
    });
  }
}

async function* taskSlices(db: AnyDb): AsyncGenerator<Array<{ hash: string; task: string }>> {
  for (let after = ""; ; ) {
    const rows = (await db
      .selectFrom("tasks")
      .select(["hash", "task"])
      .where("hash", ">", after)
      .orderBy("hash")
      .limit(SLICE)
      .execute()) as Array<{ hash: string; task: string }>;
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1].hash;
  }
}

async function convertTasks(db: AnyDb): Promise<void> {
  for await (const rows of taskSlices(db)) {
    const texts: NewTexts = new Map();
    const changed = rows.map((r) => ({ ...r, stored: encodeTask(r.task, texts) })).filter((r) => r.stored !== r.task);
    await inTransaction(db, async (trx) => {
      await insertTexts(trx, texts);
      for (const r of changed)
        await trx.updateTable("tasks").set({ task: r.stored }).where("hash", "=", r.hash).execute();
    });
  }
}

async function restoreTasks(db: AnyDb): Promise<void> {
  const reader = new TextReader(db);
  for await (const rows of taskSlices(db)) {
    const json = await reader.taskJson(rows.map((r) => r.task));
    await inTransaction(db, async (trx) => {
      for (const [i, r] of rows.entries()) {
        if (json[i] !== r.task)
          await trx.updateTable("tasks").set({ task: json[i] }).where("hash", "=", r.hash).execute();
      }
    });
  }
}

async function* trialSlices(db: AnyDb): AsyncGenerator<Array<{ id: string; condition: string }>> {
  for (let after = ""; ; ) {
    const rows = (await db
      .selectFrom("trials")
      .select(["id", "condition"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(SLICE)
      .execute()) as Array<{ id: string; condition: string }>;
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1].id;
  }
}

async function convertTrials(db: AnyDb): Promise<void> {
  for await (const rows of trialSlices(db)) {
    const texts: NewTexts = new Map();
    const changed = rows
      .map((r) => ({ ...r, stored: sharedJson(r.condition, texts) }))
      .filter((r) => r.stored !== r.condition);
    await inTransaction(db, async (trx) => {
      await insertTexts(trx, texts);
      for (const r of changed)
        await trx.updateTable("trials").set({ condition: r.stored }).where("id", "=", r.id).execute();
    });
  }
}

async function restoreTrials(db: AnyDb): Promise<void> {
  const reader = new TextReader(db);
  for await (const rows of trialSlices(db)) {
    const keys = rows.map((r) => refOf(r.condition)).filter((k): k is string => k !== undefined);
    const texts = await reader.texts(keys);
    await inTransaction(db, async (trx) => {
      for (const r of rows) {
        const condition = jsonOf(r.condition, texts);
        if (condition !== r.condition)
          await trx.updateTable("trials").set({ condition }).where("id", "=", r.id).execute();
      }
    });
  }
}
