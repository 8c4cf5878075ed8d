/**
 * `parallax report` checks its stored analysis against the store in the same pass over the run's
 * trials that finds the trial pages' cells (trials.ts `scanRun`): that pass gives the rows hash
 * `analyze` stored and the cells `trialCells` finds, and any changed, added or removed trial or
 * score since the analysis makes the record stale (and undoing the change makes it current again:
 * the check is on the rows' content, not on a count of writes).
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import {
  type AnalysisRecord,
  analysisRecord,
  analyzeDirectory,
  normalizePlan,
  recordJson,
  requireCurrentRows,
  storedAnalysis,
  writeAnalysisRecord,
} from "../../src/analysis/index.js";
import type { ScoreRecord } from "../../src/contracts/trial.js";
import { scanRun, trialCells } from "../../src/report/index.js";
import { openStore } from "../../src/run/store/open.js";
import type { RunRecord, TrialStore } from "../../src/run/store/types.js";
import { runCli } from "../helpers/cli.js";
import { writeLargeStudy } from "../viewer/fixture.js";

const PLAN = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false });

/** More trials than the scan's store page (200), so the pass runs over several pages. */
const TRIALS = 650;

function judged(trialId: string, value: number): ScoreRecord {
  return {
    trialId,
    scorer: "judge",
    version: "1",
    parsedAnswer: value === 1 ? "A" : "B",
    parseStatus: "ok",
    score: value,
    details: null,
    createdAt: "2026-01-02T00:00:00.000Z",
  };
}

/** Runs SQL on the study's store (as a hand edit or another process would), between store sessions. */
function edit(dir: string, change: (db: Database.Database) => void): void {
  const db = new Database(join(dir, "parallax.db"));
  try {
    change(db);
  } finally {
    db.close();
  }
}

async function withStore<T>(dir: string, use: (store: TrialStore, run: RunRecord) => Promise<T>): Promise<T> {
  const store = await openStore(dir);
  try {
    return await use(store, (await store.getRun())!);
  } finally {
    await store.close();
  }
}

/** Whether the record still matches the store, by the report's one pass (and by `storedAnalysis`, which must agree). */
async function current(dir: string, record: AnalysisRecord): Promise<boolean> {
  return withStore(dir, async (store, run) => {
    const scan = await scanRun(store, run, record.analysis, { path: dir, scorer: record.inputs.scorer ?? undefined });
    const byScan = scan.rowsHash === record.inputs.rows;
    const path = join(dir, "analysis.json");
    // storedAnalysis reads the record from the study's folder.
    writeFileSync(path, recordJson(record));
    if (!byScan) {
      assert.throws(
        () => requireCurrentRows(record, scan.rowsHash, path, dir),
        /out of date: trials or their scores changed since it was written; run 'parallax analyze .*' again/,
      );
    }
    const byStore = await storedAnalysis(dir, store, run).then(
      () => true,
      (error: Error) => (/out of date/.test(error.message) ? false : Promise.reject(error)),
    );
    assert.equal(byStore, byScan, "storedAnalysis and the report's scan agree");
    return byScan;
  });
}

describe("the report's check of its stored analysis", () => {
  it("hashes the rows analyze hashed and finds trialCells' cells in the same pass", async () => {
    const { dir } = await writeLargeStudy(TRIALS);
    await withStore(dir, async (store, run) => {
      const outcome = await analyzeDirectory(dir, store, run, { plan: PLAN });
      const scan = await scanRun(store, run, outcome.analysis, { path: dir });
      assert.equal(scan.rowsHash, outcome.inputs.rows, "the scan's rows hash is the analysed rows' hash");
      const cells = await trialCells(store, run, outcome.analysis);
      const summary = (list: Iterable<{ id: string; trials: number; start: number; configuration: string }>) =>
        [...list].map((c) => [c.id, c.trials, c.start, c.configuration]);
      assert.deepEqual(summary(scan.cells.keys()), summary(cells), "the same cells in the same order");
      assert.equal(
        [...scan.cells.values()].reduce((sum, ids) => sum + ids.length, 0),
        TRIALS,
        "every trial in a cell",
      );
      // A scorer the run does not hold is refused as the loader refuses it.
      await assert.rejects(
        scanRun(store, run, outcome.analysis, { path: dir, scorer: "nope" }),
        /no outcomes from scorer 'nope'; scorers: run-time/,
      );
    });
  });

  it("sees a changed, added or removed trial or score, and nothing else", async () => {
    const { dir, trials } = await writeLargeStudy(TRIALS);
    const scored = trials.filter((t) => t.score !== null);
    // Trials on different store pages of the scan: the first, one in the middle, the last.
    const ids = scored.map((t) => t.id).sort();
    const [early, middle, late] = [ids[3], ids[Math.floor(ids.length / 2)], ids[ids.length - 2]];
    await withStore(dir, (store) => store.saveScores(ids.map((id, i) => judged(id, i % 2))));
    const analyse = (scorer?: string) =>
      withStore(dir, async (store, run) => {
        const record = analysisRecord(await analyzeDirectory(dir, store, run, { plan: PLAN, scorer }));
        writeAnalysisRecord(dir, record);
        return record;
      });
    const runTime = await analyse();
    assert.equal(await current(dir, runTime), true, "just analysed: current");

    // One run-time score flipped by hand: stale; flipped back: current again.
    const flip = (id: string) =>
      edit(dir, (db) => db.prepare("update trials set score = 1 - score where id = ?").run(id));
    flip(middle);
    assert.equal(await current(dir, runTime), false, "a changed run-time score");
    flip(middle);
    assert.equal(await current(dir, runTime), true, "the score restored");

    // A stored scorer's score changed (a rescoring): stale for that scorer's analysis only.
    const judgedRecord = await analyse("judge");
    assert.equal(await current(dir, judgedRecord), true, "the judge's analysis, just written");
    await withStore(dir, (store) => store.saveScores([judged(late, 1 - (ids.indexOf(late) % 2))]));
    assert.equal(await current(dir, judgedRecord), false, "a changed judge score");
    assert.equal(await current(dir, runTime), true, "the run-time analysis does not read the judge's scores");
    await withStore(dir, (store) => store.saveScores([judged(late, ids.indexOf(late) % 2)]));
    assert.equal(await current(dir, judgedRecord), true, "the judge score restored");

    // A trial removed (with its calls and scores), then added back as it was.
    const saved = edit.bind(null, dir);
    let row: Record<string, unknown> = {};
    let calls: Record<string, unknown>[] = [];
    let scores: Record<string, unknown>[] = [];
    saved((db) => {
      row = db.prepare("select * from trials where id = ?").get(early) as Record<string, unknown>;
      calls = db.prepare("select * from calls where trial_id = ?").all(early) as Record<string, unknown>[];
      scores = db.prepare("select * from scores where trial_id = ?").all(early) as Record<string, unknown>[];
      db.pragma("foreign_keys = OFF");
      for (const table of ["calls", "scores", "trial_search_docs"]) {
        if (db.prepare("select 1 from sqlite_master where name = ?").get(table))
          db.prepare(`delete from ${table} where trial_id = ?`).run(early);
      }
      db.prepare("delete from trials where id = ?").run(early);
    });
    assert.equal(await current(dir, runTime), false, "a removed trial");
    const insert = (db: Database.Database, table: string, values: Record<string, unknown>) => {
      const columns = Object.keys(values);
      db.prepare(`insert into ${table} (${columns.join(", ")}) values (${columns.map(() => "?").join(", ")})`).run(
        ...columns.map((c) => values[c]),
      );
    };
    saved((db) => {
      insert(db, "trials", row);
      for (const call of calls) insert(db, "calls", call);
      for (const score of scores) insert(db, "scores", score);
    });
    assert.equal(await current(dir, runTime), true, "the trial restored");

    // A trial added: a copy of one under a new id, in the same cell.
    saved((db) => insert(db, "trials", { ...row, id: `${String(row.id).slice(0, -1)}x` }));
    assert.equal(await current(dir, runTime), false, "an added trial");
  });

  it("refuses a stale analysis from the CLI with exit 2 and writes no report", async () => {
    const { dir, trials } = await writeLargeStudy(60);
    await withStore(dir, async (store, run) => {
      writeAnalysisRecord(dir, analysisRecord(await analyzeDirectory(dir, store, run, { plan: PLAN })));
    });
    const id = trials.find((t) => t.score !== null)!.id;
    edit(dir, (db) => db.prepare("update trials set score = 1 - score where id = ?").run(id));
    const report = runCli(["report", dir]);
    assert.equal(report.status, 2, report.stderr);
    assert.match(report.stderr, /analysis\.json is out of date: trials or their scores changed/);
    assert.equal(existsSync(join(dir, "report.html")), false, "no report written");
    assert.equal(existsSync(join(dir, "trials.html")), false, "no trials page written");
  });
});
