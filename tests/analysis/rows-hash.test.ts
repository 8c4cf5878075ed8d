/**
 * The stored analysis's rows hash computed a store page at a time (rows-hash.ts) is the hash of
 * the whole loaded table (inputs.ts rowsHash over loadStudyTable), for the run-time outcome and
 * for stored scorers, including a scorer first seen on the second store page (whose rows of the
 * first page the loader fills in unscored), with pending trials skipped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { storedRowsHash } from "../../src/analysis/core/rows-hash.js";
import { rowsHash } from "../../src/analysis/core/inputs.js";
import { loadStudyTable, TABLE_PAGE_SIZE } from "../../src/analysis/core/table.js";
import type { ScoreRecord } from "../../src/contracts/trial.js";
import { openStore } from "../../src/run/store/open.js";
import { writeLargeStudy } from "../viewer/fixture.js";

/** Trials per loader page: more than that puts trials on a second page. */
const LOADER_PAGE = TABLE_PAGE_SIZE;

function score(trialId: string, scorer: string, value: number, createdAt: string): ScoreRecord {
  return {
    trialId,
    scorer,
    version: "1",
    parsedAnswer: value === 1 ? "A" : "B",
    parseStatus: "ok",
    score: value,
    details: null,
    createdAt,
  };
}

describe("the paged rows hash", () => {
  it("equals the hash of the loaded table, for every scorer, across store pages", async () => {
    const { dir, trials } = await writeLargeStudy(LOADER_PAGE + 350);
    const ids = trials.map((t) => t.id).sort();
    // An errored trial's row has no outcome, whatever its scores.
    const errored = new Set(trials.filter((t) => t.status === "errored").map((t) => t.id));
    // Some trials not run yet: they have no rows.
    const pending = ids.filter((_, i) => i % 7 === 2);
    const db = new Database(join(dir, "parallax.db"));
    db.prepare(`update trials set status = 'pending' where id in (${pending.map(() => "?").join(",")})`).run(
      ...pending,
    );
    db.close();
    const store = await openStore(dir);
    try {
      const run = (await store.getRun())!;
      // "every" scores each third trial (twice for some: the later score wins); "late" only trials of the second page.
      const every = ids.filter((_, i) => i % 3 === 0);
      const lateScored = ids.slice(LOADER_PAGE + 10, LOADER_PAGE + 60);
      await store.saveScores([
        ...every.map((id, i) => score(id, "every", i % 2, "2026-01-02T00:00:00.000Z")),
        ...every.slice(0, 40).map((id) => ({ ...score(id, "every", 1, "2026-01-03T00:00:00.000Z"), version: "2" })),
        ...lateScored.map((id) => score(id, "late", 1, "2026-01-02T00:00:00.000Z")),
      ]);
      const hashes = new Map<string | undefined, string>();
      for (const scorer of [undefined, "run-time", "every", "late"]) {
        const table = await loadStudyTable(store, run, dir, scorer);
        assert.equal(table.rows.length, ids.length - pending.length, `${scorer}: one row per trial run`);
        const paged = await storedRowsHash(store, run, dir, scorer);
        assert.equal(paged, rowsHash(table), `scorer ${scorer ?? "(default)"}`);
        hashes.set(scorer, paged);
      }
      // The scorers' rows differ, so a hash that ignored the scorer would fail above.
      assert.equal(hashes.get(undefined), hashes.get("run-time"));
      assert.equal(new Set(hashes.values()).size, 3);
      // "late" was first seen on the second page: its first-page rows are filled in unscored.
      const late = await loadStudyTable(store, run, dir, "late");
      assert.equal(
        late.rows.filter((r) => r.outcome !== null).length,
        lateScored.filter((id) => !pending.includes(id) && !errored.has(id)).length,
      );
      assert.ok(
        late.rows.slice(0, LOADER_PAGE / 2).every((r) => r.outcome === null && r.scorer === "late"),
        'expected late.rows.slice(0, LOADER_PAGE / 2).every((r) => r.outcome === null && r.scorer === "la...',
      );
      // A scorer the run does not hold: the same refusal from both.
      const refusal = await loadStudyTable(store, run, dir, "nope").then(
        () => assert.fail("loadStudyTable accepted an unknown scorer"),
        (error: Error) => error.message,
      );
      await assert.rejects(storedRowsHash(store, run, dir, "nope"), (error: Error) => error.message === refusal);
      assert.match(refusal, /no outcomes from scorer 'nope'; scorers: run-time, every, late/);
    } finally {
      await store.close();
    }
  });
});
