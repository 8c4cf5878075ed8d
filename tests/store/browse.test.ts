/**
 * Browsing a run's trials (store/browse.ts) on SQLite and, when PARALLAX_TEST_PG_URL names a
 * database, PostgreSQL: keyset pages forwards and backwards, every filter, full-text search,
 * the run's groups, and a read-only store refusing writes. Expectations come from the planted
 * trials below.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import pg from "pg";
import type { CallRecord, PlannedTrial, TrialOutcome } from "../../src/contracts/trial.js";
import { conditionHash } from "../../src/core/hash.js";
import type { TrialQuery } from "../../src/run/store/browse.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow, TrialStore } from "../../src/run/store/types.js";
import { makeRun } from "./store-suite.js";
import { needsPostgres } from "../helpers/prerequisites.js";

const RUN = "browse-run";
const COUNT = 230;

interface Planted {
  id: string;
  model: string;
  scaffold: string;
  item: string;
  /** null: pending. */
  status: "finished" | "errored" | null;
  score: number | null;
  parse: "ok" | "failed" | null;
  bucket: string | null;
  optionsLost: boolean;
  response: string;
}

function planted(i: number): Planted {
  const pending = i % 23 === 7;
  const errored = !pending && i % 17 === 4;
  const parseFailed = !pending && !errored && i % 13 === 2;
  return {
    id: `trial-${String((i * 7919) % 1000).padStart(4, "0")}-${i}`,
    model: i % 3 === 0 ? "m-a" : "m-b",
    scaffold: i % 2 === 0 ? "direct" : "react",
    item: `item-${i % 40}`,
    status: pending ? null : errored ? "errored" : "finished",
    score: pending || errored || parseFailed ? null : i % 4 === 0 ? 0 : 1,
    parse: pending || errored ? null : parseFailed ? "failed" : "ok",
    bucket: errored ? "timeout" : null,
    optionsLost: i % 9 === 0,
    response: `reply zebra${i} ${i % 10 === 0 ? "giraffe" : "otter"}`,
  };
}

const TRIALS = Array.from({ length: COUNT }, (_, i) => planted(i));
const sorted = (list: Planted[]) => list.map((t) => t.id).sort();

async function fill(store: TrialStore): Promise<void> {
  await store.saveRun(makeRun(RUN));
  const rows: PlannedTrial[] = TRIALS.map((t) => {
    const condition = { scaffold: t.scaffold };
    return {
      id: t.id,
      runId: RUN,
      modelId: t.model,
      benchmarkId: "bench",
      itemId: t.item,
      conditionHash: conditionHash(condition),
      condition,
      attempt: 1,
    };
  });
  await store.addPlannedTrials(rows);
  const done = TRIALS.filter((t) => t.status !== null);
  await store.completeTrials(
    done.map((t) => {
      const outcome: TrialOutcome = {
        status: t.status!,
        finalAnswer: t.status === "errored" ? null : t.response,
        parsedAnswer: t.parse === "ok" ? "A" : null,
        parseStatus: t.parse ?? "not_applicable",
        score: t.score,
        scorer: "mc_last_answer",
        failureBucket: t.bucket as TrialOutcome["failureBucket"],
        errorMessage: t.bucket ? "timed out" : null,
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: 0,
        latencyMs: 1,
        droppedParams: [],
        simulated: true,
      };
      const call: CallRecord = {
        trialId: t.id,
        execution: 1,
        seq: 1,
        role: "answer",
        messages: [{ role: "user", content: `Prompt about ${t.item} and a walrus` }],
        paramsUsed: {},
        droppedParams: [],
        responseText: t.status === "errored" ? null : t.response,
        usage: { inputTokens: 1, outputTokens: 1 },
        costUsd: 0,
        latencyMs: 1,
        cached: false,
        error: null,
        startedAt: "2026-01-01T00:00:00.000Z",
        audit: { options_reached: !t.optionsLost },
      };
      return { trialId: t.id, outcome, calls: [call] };
    }),
  );
}

async function allPages(store: TrialStore, query: TrialQuery, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const { trials, more } = await store.browseTrials(RUN, query, { after, limit });
    if (trials.length > 0) pages.push(trials.map((t: TrialRow) => t.id));
    if (!more) return pages;
    after = trials.at(-1)!.id;
  }
}

function browseBehaviours(name: string, target: () => Promise<{ url: string; cleanup: () => Promise<void> }>) {
  describe(`browsing trials (${name})`, () => {
    it("pages by key, filters in SQL, searches, and refuses writes when read-only", async () => {
      const { url, cleanup } = await target();
      const writer = await openStore(url);
      try {
        await fill(writer);
        const store = await openStore(url, { readOnly: true });
        try {
          await checks(store);
          await assert.rejects(store.saveRun(makeRun("other")), /read-?only/i);
        } finally {
          await store.close();
        }
      } finally {
        await writer.close();
        await cleanup();
      }
    });
  });
}

async function checks(store: TrialStore): Promise<void> {
  // Forwards: every trial once, in id order, pages of 50.
  const pages = await allPages(store, {}, 50);
  assert.deepEqual(pages.flat(), sorted(TRIALS));
  assert.deepEqual(
    pages.map((p) => p.length),
    [50, 50, 50, 50, 30],
  );
  // Backwards from the last page's first id gives the previous page, in id order.
  const back = await store.browseTrials(RUN, {}, { before: pages[4][0], limit: 50 });
  assert.deepEqual(
    back.trials.map((t) => t.id),
    pages[3],
  );
  assert.equal(back.more, true);
  const expectFilter = async (query: TrialQuery, wanted: Planted[]) =>
    assert.deepEqual((await allPages(store, query, 40)).flat(), sorted(wanted), JSON.stringify(query));
  await expectFilter(
    { models: ["m-a"] },
    TRIALS.filter((t) => t.model === "m-a"),
  );
  await expectFilter(
    { outcome: "pass" },
    TRIALS.filter((t) => t.status === "finished" && t.score === 1),
  );
  await expectFilter(
    { outcome: "fail", models: ["m-b"] },
    TRIALS.filter((t) => t.score === 0 && t.model === "m-b"),
  );
  await expectFilter(
    { outcome: "unscored" },
    TRIALS.filter((t) => t.status === "finished" && t.score === null),
  );
  await expectFilter(
    { outcome: "errored" },
    TRIALS.filter((t) => t.status === "errored"),
  );
  await expectFilter(
    { outcome: "pending" },
    TRIALS.filter((t) => t.status === null),
  );
  await expectFilter(
    { parseStatus: "failed" },
    TRIALS.filter((t) => t.parse === "failed"),
  );
  await expectFilter(
    { failureBucket: "timeout" },
    TRIALS.filter((t) => t.bucket === "timeout"),
  );
  await expectFilter(
    { auditFailed: "options_reached" },
    TRIALS.filter((t) => t.optionsLost && t.status !== null),
  );
  await expectFilter(
    { conditionHashes: [conditionHash({ scaffold: "react" })], items: ["item-3", "item-5"] },
    TRIALS.filter((t) => t.scaffold === "react" && ["item-3", "item-5"].includes(t.item)),
  );
  // Search: a response word, a prompt word, together with a filter; query syntax stays literal.
  await expectFilter(
    { search: "zebra42" },
    TRIALS.filter((t) => t.response.includes("zebra42 ") && t.status === "finished"),
  );
  await expectFilter(
    { search: "giraffe", models: ["m-a"] },
    TRIALS.filter((t) => t.response.endsWith("giraffe") && t.model === "m-a" && t.status === "finished"),
  );
  await expectFilter(
    { search: "walrus item-7" },
    TRIALS.filter((t) => t.item === "item-7" && t.status !== null),
  );
  await expectFilter({ search: 'otter" OR "giraffe' }, []);
  // The groups: one per (model, benchmark, condition), with counts.
  const groups = await store.trialGroups(RUN);
  const expected = new Map<string, number>();
  for (const t of TRIALS)
    expected.set(
      `${t.model}|${conditionHash({ scaffold: t.scaffold })}`,
      (expected.get(`${t.model}|${conditionHash({ scaffold: t.scaffold })}`) ?? 0) + 1,
    );
  assert.deepEqual(new Map(groups.map((g) => [`${g.modelId}|${g.conditionHash}`, g.trials])), expected);
  for (const g of groups) assert.equal(JSON.parse(g.condition).scaffold !== undefined, true);
}

browseBehaviours("SQLite", async () => ({
  url: mkdtempSync(join(tmpdir(), "parallax-browse-")),
  cleanup: async () => {},
}));

const PG_URL = process.env.PARALLAX_TEST_PG_URL;
if (PG_URL) {
  browseBehaviours("PostgreSQL", async () => {
    const schema = `parallax_browse_${process.pid}_${randomBytes(4).toString("hex")}`;
    const u = new URL(PG_URL);
    u.searchParams.set("schema", schema);
    return {
      url: u.toString(),
      cleanup: async () => {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        try {
          await client.query(`drop schema if exists "${schema}" cascade`);
        } finally {
          await client.end();
        }
      },
    };
  });
} else {
  describe("browsing trials (PostgreSQL)", {
    skip: needsPostgres(),
  }, () => {
    it("runs on PostgreSQL", () => {});
  });
}
