/**
 * The analysis reads a study's trials once, narrowly (`listTrialFacts`, `getTaskFacts`), for both
 * its table and its integrity facts. On a real study (moved options, errored trials, a stored
 * scorer) the narrow read gives the rows, the facts and the task fields the full read gives.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Session } from "node:inspector/promises";
import { studyIntegrityFacts, integrityFactsReader } from "../../src/analysis/core/integrity-facts.js";
import { recordedStudy, releaseRecordedStudy } from "../../src/analysis/core/recorded-study.js";
import { type AnalysisRow, loadScoredStudyTable, scoredTablePages } from "../../src/analysis/core/table.js";
import { rowsHash } from "../../src/analysis/core/inputs.js";
import { plainRow } from "../../src/analysis/core/trial-columns.js";
import { hashValue } from "../../src/core/hash.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { TASK_FACT_FIELDS, type TrialRow } from "../../src/run/store/types.js";
import { runScoredDemoStudy } from "../helpers/scored-study.js";
import { writeDemoSpec } from "../helpers/study.js";

/** A trial without what `listTrialFacts` leaves out. */
function withoutText(trial: TrialRow): TrialRow {
  if (trial.outcome === null) return trial;
  return { ...trial, outcome: { ...trial.outcome, finalAnswer: null, errorMessage: null, droppedParams: [] } };
}

describe("the narrow read of a study's trials", () => {
  it("gives the full read's rows, integrity facts and task fields", async () => {
    // A stored scorer that scored some trials: its rows come from the same pages.
    const { outDir, store, run, trials } = await runScoredDemoStudy(
      { items: 14, facets: "    format: [mc, oe]\n    perturbation: [none, choice_reorder]" },
      { trials: (all) => all.slice(3, 40), score: (i) => i % 2 },
    );
    try {
      assert.ok(trials.length >= 100, `a study of ${trials.length} trials`);

      // Trials: the same, apart from the free text; one record per stored condition.
      const facts = [];
      for (let afterId: string | undefined; ; ) {
        const page = await store.listTrialFacts(run.id, { limit: 17, afterId });
        if (page.length === 0) break;
        facts.push(...page);
        afterId = page[page.length - 1].id;
      }
      assert.deepEqual(facts, trials.map(withoutText));
      const conditions = new Set(facts.map((t) => t.condition));
      assert.equal(conditions.size, new Set(facts.map((t) => t.conditionHash)).size, "one record per condition");

      // Tasks: the wanted fields of each, decoded from the shared texts.
      const hashes = [...new Set(trials.flatMap((t) => (t.taskHash ? [t.taskHash] : [])))];
      const full = await store.getTasks(hashes);
      const narrow = await store.getTaskFacts([...hashes, "no-such-task"]);
      assert.equal(narrow.size, hashes.length, "every stored task, none made up");
      const moved = [...full.values()].filter((t) => t.perturbation?.changed?.includes("options"));
      assert.ok(moved.length > 0, "some tasks had their options reordered");
      for (const [hash, task] of full) {
        const picked = Object.fromEntries(TASK_FACT_FIELDS.filter((f) => f in task).map((f) => [f, task[f]]));
        assert.deepEqual(narrow.get(hash), picked, `task ${hash}`);
      }
      // A task's condition is not among its facts: the integrity reader takes its trials' instead.
      for (const trial of facts) {
        if (trial.taskHash) assert.deepEqual(full.get(trial.taskHash)?.condition, trial.condition, `trial ${trial.id}`);
      }

      // The table: the narrow read's rows are the full read's.
      const runTime: AnalysisRow[] = [];
      const strict: AnalysisRow[] = [];
      for await (const page of scoredTablePages(store, run, 2_000)) {
        runTime.push(...page.runTime);
        strict.push(...(page.byScorer.get("strict") ?? []));
      }
      const reader = integrityFactsReader(outDir, store, run);
      const table = await loadScoredStudyTable(store, run, outDir, { onTrials: (page) => reader.add(page) });
      // Read as views of the table's columns, the rows hold the same values.
      const rows = table.rows.map(plainRow);
      assert.deepEqual(rows, [...runTime, ...strict]);
      assert.equal(strict.length, runTime.length, "the stored scorer has a row of every trial");
      // The row-at-a-time rows hash is the hash of the whole table.
      assert.equal(rowsHash(table), hashValue(rows));
      assert.equal(rowsHash({ ...table, rows: table.rows.slice(5) }), hashValue(rows.slice(5)));

      // The integrity facts gathered from the table's read are the ones a read of their own gives.
      const shared = await reader.facts();
      const own = await studyIntegrityFacts(outDir, store, run);
      assert.deepEqual(shared, own);
      assert.ok(
        own.golds !== undefined && "trials" in own.golds && own.golds.trials.size > 0,
        "gold positions were found",
      );
    } finally {
      await store.close();
    }
  });

  it("holds no study once its facts are taken, while the analyses keep the reader", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 6 });
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    const session = new Session();
    session.connect();
    try {
      const run = (await store.getRun())!;
      const reader = integrityFactsReader(outDir, store, run);
      await loadScoredStudyTable(store, run, outDir, { onTrials: (page) => reader.add(page) });
      const study = new WeakRef(await recordedStudy(outDir, store, run));
      const facts = await reader.facts();
      releaseRecordedStudy();
      // A WeakRef read in this job keeps its target until the job ends: collect on a later turn.
      await new Promise((resolve) => setImmediate(resolve));
      await session.post("HeapProfiler.collectGarbage");
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(study.deref(), undefined, "the study's items and pools were collected");
      assert.ok(facts.golds !== undefined && reader !== undefined, "the facts and the reader are still held");
    } finally {
      session.disconnect();
      await store.close();
    }
  });
});
