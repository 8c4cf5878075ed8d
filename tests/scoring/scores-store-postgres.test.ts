/**
 * The scores table (migration 0003) on SQLite and, when PARALLAX_TEST_PG_URL is set (the test
 * script starts a throwaway PostgreSQL for files named *postgres*), on PostgreSQL: upsert by
 * (trial, scorer, version), filters, JSON details and nulls round-trip; whether a run has scores.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { ScoreRecord } from "../../src/contracts/trial.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialStore } from "../../src/run/store/types.js";
import { makeRun, makeTrials } from "../store/store-suite.js";
import { describeNeeding, needsPostgres, test } from "../helpers/prerequisites.js";

const PG_URL = process.env.PARALLAX_TEST_PG_URL;

interface Target {
  open(): Promise<TrialStore>;
  cleanup(): Promise<void>;
}

function sqlite(): Target {
  const dir = mkdtempSync(join(tmpdir(), "parallax-scores-"));
  return { open: () => openStore(dir), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

function postgres(url: string): Target {
  const schema = `parallax_scores_${process.pid}_${randomBytes(4).toString("hex")}`;
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return {
    open: () => openStore(u.toString()),
    cleanup: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

function record(trialId: string, scorer: string, version: string, extra: Partial<ScoreRecord> = {}): ScoreRecord {
  return {
    trialId,
    scorer,
    version,
    parsedAnswer: "B",
    parseStatus: "ok",
    score: 1,
    details: { marker: "answer", nested: { list: [1, "ü"] } },
    createdAt: "2025-01-01T00:00:00.000Z",
    ...extra,
  };
}

function suite(name: string, make: () => Target, skip?: string | false): void {
  describeNeeding(skip, name, () => {
    test("saves, upserts by (trial, scorer, version) and lists with filters", async () => {
      const target = make();
      const store = await target.open();
      try {
        await store.saveRun(makeRun("r1"));
        const trials = makeTrials("r1", 3);
        await store.addPlannedTrials(trials);
        const [a, b, c] = trials.map((t) => t.id);
        assert.equal(await store.hasScores("r1"), false);
        await store.saveScores([
          record(a, "mc_last_answer", "1.0.0"),
          record(b, "mc_last_answer", "1.0.0", { parsedAnswer: null, parseStatus: "failed", score: 0, details: null }),
          record(a, "judge:j1", "1.0.0", { parsedAnswer: "unbiased", score: null }),
        ]);
        // Same key: replaced; new version: added.
        await store.saveScores([
          record(a, "mc_last_answer", "1.0.0", { parsedAnswer: "C", score: 0, createdAt: "2025-01-02T00:00:00.000Z" }),
          record(c, "mc_last_answer", "2.0.0"),
        ]);
        const all = await store.listScores("r1");
        assert.equal(all.length, 4);
        const mc = await store.listScores("r1", { scorer: "mc_last_answer" });
        assert.deepEqual(
          mc.map((s) => [s.trialId, s.version, s.parsedAnswer, s.parseStatus, s.score]),
          [
            [a, "1.0.0", "C", "ok", 0],
            [b, "1.0.0", null, "failed", 0],
            [c, "2.0.0", "B", "ok", 1],
          ],
        );
        assert.deepEqual(mc[2].details, { marker: "answer", nested: { list: [1, "ü"] } });
        assert.equal(mc[1].details, null);
        assert.equal((await store.listScores("r1", { scorer: "mc_last_answer", version: "2.0.0" })).length, 1);
        assert.deepEqual((await store.listScores("r1", { trialIds: [a] })).map((s) => s.scorer).sort(), [
          "judge:j1",
          "mc_last_answer",
        ]);
        assert.deepEqual(await store.listScores("r1", { trialIds: [] }), []);
        assert.deepEqual(await store.listScores("other-run"), []);
        assert.equal(await store.hasScores("r1"), true);
        await store.saveRun(makeRun("r2"));
        await store.addPlannedTrials(makeTrials("r2", 2));
        assert.equal(await store.hasScores("r2"), false, "another run's scores are not this run's");
        await assert.rejects(store.saveScores([record("no-such-trial", "x", "1")]));
      } finally {
        await store.close();
        await target.cleanup();
      }
    });
  });
}

suite("scores on SQLite", sqlite);
suite("scores on PostgreSQL", () => postgres(PG_URL!), needsPostgres());
