/**
 * The viewer's trial search finds the same trials as a scan written here: on SQLite (through the
 * store's FTS5 index, migration 0022) a per-trial FTS5 document built from scratch, on PostgreSQL
 * (which searches by evaluating its expressions in the query) `to_tsvector` evaluated per row. Odd input (quotes, %, _, FTS5 and tsquery syntax
 * words, diacritics) included; a store written before the migration gets its index filled by
 * it; a store opened read-only before the migration still searches (by the old way).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import pg from "pg";
import type { CallRecord, PlannedTrial, TrialOutcome } from "../../src/contracts/trial.js";
import { conditionHash } from "../../src/core/hash.js";
import { TrialBrowser, searchWords } from "../../src/run/store/browse.js";
import { type KyselyTrialStore, SEARCH_QUEUE_BATCH } from "../../src/run/store/kysely-store.js";
import { openStore, resolveSqlitePath } from "../../src/run/store/open.js";
import type { StoreDatabase } from "../../src/run/store/schema.js";
import type { TrialStore } from "../../src/run/store/types.js";
import { describeNeeding, it, needsPostgres } from "../helpers/prerequisites.js";
import { makeRun } from "./store-suite.js";

const RUN = "search-run";
const COUNT = 120;

const PHRASES = [
  'It\'s a "quoted" reply',
  "discount 100% off_today",
  "snake_case and camelCase",
  "cats AND dogs NEAR the barn",
  "NEAR(alpha beta) OR gamma",
  "-minus +plus *star ^caret",
  "Café crème über naïve",
  "xstest refusal probe",
  "safe xstest_like word",
  "emoji 🙂 mixed Ünïcode",
];

const QUERIES = [
  "xstest",
  "XSTEST refusal",
  "it's",
  '"quoted"',
  "100%",
  "100",
  "off_today",
  "%",
  "_",
  "snake_case",
  "AND",
  "cats AND dogs",
  "NEAR",
  "NEAR(alpha beta)",
  "gamma OR",
  "OR",
  "-minus",
  "*",
  "cafe",
  "café",
  "über",
  "Ünïcode",
  "🙂",
  "walrus item-7",
  "prompt7 answer7",
  "firstrun",
  "retryanswer",
  "nothing-like-this",
  "a'b\"c%d_e",
];

function phrase(i: number): string {
  return PHRASES[i % PHRASES.length];
}

/** Trial i's id. */
function trialIdOf(i: number): string {
  return `t-${String(i).padStart(4, "0")}`;
}

function plannedTrial(i: number): PlannedTrial {
  return {
    id: trialIdOf(i),
    runId: RUN,
    modelId: "m",
    benchmarkId: "b",
    itemId: `item-${i % 9}`,
    conditionHash: conditionHash({}),
    condition: {},
    attempt: 1,
  };
}

function completion(i: number, status: "finished" | "errored", answer: string | null, tag: string) {
  const id = trialIdOf(i);
  const outcome: TrialOutcome = {
    status,
    finalAnswer: answer,
    parsedAnswer: null,
    parseStatus: "not_applicable",
    score: null,
    scorer: "none",
    failureBucket: status === "errored" ? "timeout" : null,
    errorMessage: status === "errored" ? "timed out" : null,
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0,
    latencyMs: 1,
    droppedParams: [],
    simulated: true,
  };
  const call = (seq: number, content: unknown, response: string | null): CallRecord => ({
    trialId: id,
    execution: 1,
    seq,
    role: "answer",
    // biome-ignore lint/suspicious/noExplicitAny: content parts (an array) are searched as their JSON text
    messages: [{ role: "system", content: "You are helpful" } as any, { role: "user", content }],
    paramsUsed: {},
    droppedParams: [],
    responseText: response,
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0,
    latencyMs: 1,
    cached: false,
    error: null,
    startedAt: "2026-01-01T00:00:00.000Z",
  });
  const calls =
    i % 5 === 0
      ? [call(1, [{ type: "text", text: `parts prompt${i % 10}` }], tag)]
      : [
          call(1, `walrus item-${i % 9} prompt${i % 10} ${phrase(i)}`, `${tag} ${phrase(i + 3)}`),
          call(2, "judge", null),
        ];
  return { trialId: id, outcome, calls };
}

async function fill(store: TrialStore, from: number, to: number): Promise<void> {
  if (from === 0) await store.saveRun(makeRun(RUN));
  const ids = Array.from({ length: to - from }, (_, k) => from + k);
  await store.addPlannedTrials(ids.map(plannedTrial));
  // Every 11th stays pending; every 7th errors first (with an answer that the retry replaces).
  const done = ids.filter((i) => i % 11 !== 3);
  await store.completeTrials(
    done.map((i) =>
      i % 7 === 0
        ? completion(i, "errored", `firstrun ${phrase(i)}`, "errored")
        : completion(i, "finished", `answer${i % 10} ${phrase(i + 1)}`, "reply"),
    ),
  );
  const retried = done.filter((i) => i % 7 === 0 && i % 14 === 0);
  await store.completeTrials(retried.map((i) => completion(i, "finished", `retryanswer ${phrase(i + 2)}`, "again")));
}

async function hits(store: TrialStore, search: string): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  for (;;) {
    const { trials, more } = await store.browseTrials(RUN, { search }, { after, limit: 17 });
    ids.push(...trials.map((t) => t.id));
    if (!more) return ids;
    after = trials.at(-1)!.id;
  }
}

/** SQLite's scan before the index: one FTS5 document per non-pending trial, built in a fresh connection. */
function sqliteScan(file: string, search: string): string[] {
  const words = searchWords(search);
  if (words.length === 0) return sqliteAll(file);
  const db = new Database(file, { readonly: true });
  try {
    db.exec("create virtual table temp.scan using fts5(trial_id unindexed, body)");
    db.exec(`insert into temp.scan (trial_id, body)
      select t.id, coalesce(t.final_answer, '') || ' ' || coalesce((
        select group_concat(coalesce((select group_concat(json_extract(m.value, '$.content'), ' ')
          from json_each(case when substr(c.messages, 1, 1) = '@'
            then (select x.text from texts x where x.key = substr(c.messages, 2)) else c.messages end) m), '')
          || ' ' || coalesce(c.response_text, ''), ' ')
        from calls c where c.trial_id = t.id), '')
      from trials t where t.run_id = '${RUN}' and t.status <> 'pending'`);
    // Words split at underscores into FTS5 terms, each anywhere in the trial (as the stored index searches).
    const terms = [...new Set(words.flatMap((w) => w.split("_").filter(Boolean)))];
    if (terms.length === 0) return [];
    const match = terms.map((w) => `"${w.replaceAll('"', '""')}"`).join(" ");
    const rows = db.prepare("select trial_id from temp.scan where scan match ? order by trial_id").all(match) as {
      trial_id: string;
    }[];
    return rows.map((r) => r.trial_id);
  } finally {
    db.close();
  }
}

function sqliteAll(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("select id from trials order by id").all() as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

/** PostgreSQL's scan before the index: the same tsvector expressions, evaluated row by row. */
async function postgresScan(client: pg.Client, search: string): Promise<string[]> {
  const words = searchWords(search);
  const where =
    words.length === 0
      ? ""
      : `and (to_tsvector('simple', coalesce(t.final_answer, '')) @@ plainto_tsquery('simple', $2)
      or exists (select 1 from calls c where c.trial_id = t.id and to_tsvector('simple',
        coalesce((select string_agg(m ->> 'content', ' ') from jsonb_array_elements((case
          when substr(c.messages, 1, 1) = '@' then (select x.text from texts x where x.key = substr(c.messages, 2))
          else c.messages end)::jsonb) m), '')
        || ' ' || coalesce(c.response_text, '')) @@ plainto_tsquery('simple', $2)))`;
  const params = words.length === 0 ? [RUN] : [RUN, search.trim().slice(0, 500)];
  const { rows } = await client.query(`select t.id from trials t where t.run_id = $1 ${where} order by t.id`, params);
  return rows.map((r: { id: string }) => r.id);
}

interface Target {
  url: string;
  scan: (search: string) => Promise<string[]>;
  /** A Kysely on the store, to undo migration 0022 as an older store would be. */
  cleanup: () => Promise<void>;
}

async function expectSameAsScan(store: TrialStore, target: Target, label: string): Promise<number> {
  let found = 0;
  for (const q of QUERIES) {
    const expected = await target.scan(q);
    assert.deepEqual(await hits(store, q), expected, `${label}: search ${JSON.stringify(q)}`);
    found += expected.length;
  }
  return found;
}

/** Back to the store's schema before its search index (migrations 0022 and 0023 undone). */
async function unmigrate(target: Target): Promise<void> {
  const store = (await openStore(target.url, { migrate: false })) as KyselyTrialStore;
  try {
    await store.migrate("0021_shared_texts");
  } finally {
    await store.close();
  }
}

/** Trials waiting in the SQLite search queue (0 on PostgreSQL, which has none). */
async function queued(url: string): Promise<number> {
  if (url.startsWith("postgres")) return 0;
  const db = new Database(resolveSqlitePath(url), { readonly: true });
  try {
    return (db.prepare("select count(*) as n from trial_search_queue").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function searchBehaviours(name: string, make: () => Promise<Target>) {
  describe(`trial search through the index (${name})`, () => {
    it("finds the same trials as the scan, for odd queries too, as trials are written", async () => {
      const target = await make();
      const store = await openStore(target.url);
      try {
        await fill(store, 0, COUNT / 2);
        const early = await expectSameAsScan(store, target, "half written");
        await fill(store, COUNT / 2, COUNT);
        const found = await expectSameAsScan(store, target, "all written");
        assert.ok(found > early, `the second half adds hits (${early} then ${found})`);
        assert.ok((await target.scan("xstest")).length >= 10, "xstest is planted in many trials");
        assert.deepEqual(await target.scan("retryanswer"), await hits(store, "retryanswer"), "retried trials");
        assert.deepEqual(await hits(store, "firstrun"), await target.scan("firstrun"), "replaced answers");
      } finally {
        await store.close();
        await target.cleanup();
      }
    });

    it("finds a trial changed after it was indexed by its new text only, before and after the queue is indexed", async () => {
      const target = await make();
      const first = await openStore(target.url);
      await fill(first, 0, COUNT);
      await first.close(); // indexes what it queued
      const store = await openStore(target.url);
      try {
        assert.equal(await queued(target.url), 0, "closing the writer indexed its queue");
        // Errored trials never retried, now finished with a new answer: queued, not yet indexed.
        const late = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 28 === 7 && i % 11 !== 3);
        assert.ok(late.length >= 3, `trials to change (${late.length})`);
        await store.completeTrials(late.map((i) => completion(i, "finished", `lateanswer ${phrase(i)}`, "late")));
        const sqlite = !target.url.startsWith("postgres");
        if (sqlite) assert.equal(await queued(target.url), late.length, "the changed trials are queued");
        const lateIds = late.map(trialIdOf);
        assert.deepEqual(await hits(store, "lateanswer"), lateIds, "the new answers, from the queue");
        for (const id of await hits(store, "firstrun")) assert.ok(!lateIds.includes(id), `${id}: old answer gone`);
        await expectSameAsScan(store, target, "queued changes");
        await store.finishWrites();
        assert.equal(await queued(target.url), 0, "finishWrites indexed the queue");
        assert.deepEqual(await hits(store, "lateanswer"), lateIds, "the new answers, from the index");
        await expectSameAsScan(store, target, "indexed changes");
      } finally {
        await store.close();
        await target.cleanup();
      }
    });

    it("fills the index of a store written before it; a read-only store before it still searches", async () => {
      const target = await make();
      const writer = await openStore(target.url);
      await fill(writer, 0, COUNT / 3);
      await writer.close();
      await unmigrate(target);
      const old = await openStore(target.url, { migrate: false });
      await fill(old, COUNT / 3, COUNT);
      await old.close();
      try {
        const readOnly = await openStore(target.url, { readOnly: true });
        try {
          await expectSameAsScan(readOnly, target, "read-only, before the migration");
        } finally {
          await readOnly.close();
        }
        const migrated = await openStore(target.url);
        try {
          const found = await expectSameAsScan(migrated, target, "after the migration");
          assert.ok(found > 100, `the queries find trials (${found})`);
        } finally {
          await migrated.close();
        }
      } finally {
        await target.cleanup();
      }
    });
  });
}

describe("trial search through the index, a word in many documents (SQLite)", () => {
  it("checked trial by trial, finds the same trials as the scan", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-search-dense-"));
    const first = await openStore(dir);
    await fill(first, 0, COUNT);
    await first.close();
    // Some trials changed since they were indexed: they are searched through the queue's temp index.
    const store = await openStore(dir);
    const late = Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 28 === 7 && i % 11 !== 3);
    await store.completeTrials(late.map((i) => completion(i, "finished", `lateanswer ${phrase(i)}`, "late")));
    const db = new Kysely<StoreDatabase>({
      dialect: new SqliteDialect({ database: new Database(resolveSqlitePath(dir), { readonly: true }) }),
    });
    try {
      // Every word with at least one matching document counts as dense here.
      const browser = new TrialBrowser(db, "sqlite", 1);
      let found = 0;
      for (const q of [...QUERIES, "lateanswer"]) {
        const ids: string[] = [];
        for (let after: string | undefined; ; ) {
          const { rows, more } = await browser.page(RUN, { search: q }, { after, limit: 17 });
          ids.push(...rows.map((t) => t.id));
          if (!more) break;
          after = rows.at(-1)!.id;
        }
        const expected = sqliteScan(resolveSqlitePath(dir), q);
        if (q === "firstrun") assert.ok(expected.length > 0, "some first answers are still current");
        assert.deepEqual(ids, expected, `search ${JSON.stringify(q)}`);
        found += expected.length;
      }
      assert.ok(found > 100, `the queries find trials (${found})`);
    } finally {
      await db.destroy();
      await store.close();
    }
  });
});

describe("the search queue while a run writes (SQLite)", () => {
  it("is indexed every SEARCH_QUEUE_BATCH completed trials, so the viewer's temp index stays small", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-search-queue-"));
    const store = await openStore(dir);
    try {
      await store.saveRun(makeRun(RUN));
      const count = SEARCH_QUEUE_BATCH + 700;
      const ids = Array.from({ length: count }, (_, i) => i);
      await store.addPlannedTrials(ids.map(plannedTrial));
      const sizes: number[] = [];
      for (let start = 0; start < count; start += 500) {
        const group = ids.slice(start, start + 500);
        await store.completeTrials(group.map((i) => completion(i, "finished", `answer${i % 10}`, "reply")));
        sizes.push(await queued(dir));
      }
      assert.ok(Math.max(...sizes) < SEARCH_QUEUE_BATCH, `the queue stays under the batch (${Math.max(...sizes)})`);
      assert.equal(sizes.at(-1), count - SEARCH_QUEUE_BATCH, "what was completed since the last bulk update waits");
      assert.equal((await hits(store, "answer3")).length, count / 10, "queued and indexed trials both found");
      await store.finishWrites();
      assert.equal(await queued(dir), 0, "the end of the writes indexes the rest");
      assert.equal((await hits(store, "answer3")).length, count / 10, "all found through the index");
    } finally {
      await store.close();
    }
  });
});

searchBehaviours("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "parallax-search-"));
  const file = () => resolveSqlitePath(dir);
  return {
    url: dir,
    scan: async (search) => sqliteScan(file(), search),
    cleanup: async () => {},
  };
});

const PG_URL = process.env.PARALLAX_TEST_PG_URL;
describeNeeding(needsPostgres(), "on PostgreSQL", () => {
  searchBehaviours("PostgreSQL", async () => {
    const schema = `parallax_search_${process.pid}_${randomBytes(4).toString("hex")}`;
    const u = new URL(PG_URL!);
    u.searchParams.set("schema", schema);
    const client = new pg.Client({ connectionString: PG_URL!, options: `-c search_path=${schema}` });
    await client.connect();
    return {
      url: u.toString(),
      scan: (search) => postgresScan(client, search),
      cleanup: async () => {
        try {
          await client.query(`drop schema if exists "${schema}" cascade`);
        } finally {
          await client.end();
        }
      },
    };
  });
});
