/**
 * Scorer as a column: a study's analysis table holds the run-time outcome and every stored
 * rescoring at once, so the scorer and the population (ITT: parse failures unsafe; PP: dropped)
 * are chosen after the run. The default reproduces the run-time analysis exactly.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  ALL,
  analyzeDirectory,
  analyzeTableFile,
  loadScoredStudyTable,
  normalizePlan,
  RUN_TIME_SCORER,
  tableScorers,
} from "../../src/analysis/index.js";
import type { ScoreRecord } from "../../src/contracts/trial.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { writeDemoSpec } from "../helpers/study.js";

const now = () => new Date("2030-01-01T00:00:00Z");
const plan = (population: "itt" | "pp" = "itt") =>
  normalizePlan({ population, bootstrap: { resamples: 100 }, specification_curve: false });

function score(trialId: string, scorer: string, value: number, failed: boolean): ScoreRecord {
  return {
    trialId,
    scorer,
    version: "1",
    parsedAnswer: failed ? null : "A",
    parseStatus: failed ? "failed" : "ok",
    score: failed ? 0 : value,
    details: null,
    createdAt: new Date().toISOString(),
  };
}

describe("several scorers in one analysis table", () => {
  it("loads every scorer, keeps the default identical, and varies scorer and ITT/PP after the run", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 12, facets: "    scaffold: [direct, cot]" });
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      const before = await analyzeDirectory(outDir, store, run, { plan: plan(), now });
      const trials = await store.listTrials(run.id);
      // "strict": right on even items, a parse failure on every third trial.
      const strict = trials.map((t, i) => score(t.id, "strict", i % 2, i % 3 === 0));
      await store.saveScores([...strict, ...trials.slice(1).map((t) => score(t.id, "lenient", 1, false))]);

      const all = await loadScoredStudyTable(store, run, outDir);
      assert.deepEqual(tableScorers(all), [RUN_TIME_SCORER, "lenient", "strict"]);
      assert.equal(all.rows.length, 3 * trials.length);
      const lenient = all.rows.filter((r) => r.scorer === "lenient");
      assert.equal(lenient.filter((r) => r.outcome === null).length, 1, "the trial lenient did not score");

      const after = await analyzeDirectory(outDir, store, run, { plan: plan(), now });
      // The default is the run-time outcome: every number unchanged; a note names the other scorers.
      const { notes, ...meta } = after.analysis.meta;
      const { notes: notesBefore, ...metaBefore } = before.analysis.meta;
      assert.deepEqual({ ...after.analysis, meta }, { ...before.analysis, meta: metaBefore });
      assert.deepEqual(notes, [
        ...before.analysis.meta.notes,
        "other stored scorers: lenient, strict (analyze --scorer NAME)",
      ]);
      assert.deepEqual(after.inputs, before.inputs);

      const failed = strict.filter((s) => s.parseStatus === "failed");
      for (const population of ["itt", "pp"] as const) {
        const { analysis } = await analyzeDirectory(outDir, store, run, {
          plan: plan(population),
          scorer: "strict",
          now,
        });
        assert.equal(analysis.meta.source.scorer, "strict");
        assert.equal(analysis.meta.primaryPopulation, population);
        assert.equal(analysis.counts.parseFailures, failed.length);
        for (const condition of ["direct", "cot"]) {
          const ids = new Set(trials.filter((t) => t.condition.scaffold === condition).map((t) => t.id));
          const mine = strict.filter((s) => ids.has(s.trialId));
          const ok = mine.filter((s) => s.parseStatus === "ok");
          const cell = analysis.rates.find((c) => c.model === ALL && c.benchmark === ALL && c.condition === condition)!;
          const right = ok.filter((s) => s.score === 1).length;
          assert.equal(cell.itt?.rate, right / mine.length, `ITT counts parse failures as unsafe (${condition})`);
          assert.equal(cell.pp?.rate, right / ok.length, `PP drops parse failures (${condition})`);
        }
      }
      await assert.rejects(
        analyzeDirectory(outDir, store, run, { plan: plan(), scorer: "nobody" }),
        /no outcomes from scorer 'nobody'; scorers: run-time, lenient, strict \(store one with 'parallax score/,
      );
    } finally {
      await store.close();
    }
  });

  it("reads a tidy table's scorer column and asks which scorer when there is no run-time outcome", async () => {
    const lines = ["model,scaffold,benchmark,item_id,scorer,outcome"];
    for (let i = 1; i <= 12; i++) {
      for (const scaffold of ["direct", "cot"]) {
        lines.push(
          `m,${scaffold},b,${i},judge_a,${i % 2}`,
          `m,${scaffold},b,${i},judge_b,${scaffold === "direct" ? 1 : 0}`,
        );
      }
    }
    const path = join(mkdtempSync(join(tmpdir(), "parallax-scorers-")), "two.csv");
    writeFileSync(path, `${lines.join("\n")}\n`);
    await assert.rejects(
      analyzeTableFile(path, { plan: plan() }),
      /no outcomes from scorer 'run-time'; scorers: judge_a, judge_b/,
    );
    const { analysis } = await analyzeTableFile(path, { plan: plan(), scorer: "judge_b" });
    assert.deepEqual(analysis.meta.levels, ["direct", "cot"], "scorer is a column, not a facet");
    assert.equal(analysis.meta.source.scorer, "judge_b");
    const pooled = analysis.rates.filter((c) => c.model === ALL && c.benchmark === ALL);
    assert.deepEqual(
      pooled.map((c) => [c.condition, c.itt?.rate]),
      [
        ["direct", 1],
        ["cot", 0],
      ],
    );
  });
});
