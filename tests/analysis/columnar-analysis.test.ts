/**
 * A study directory's analysis reads its rows as views of the table's columns (trial-columns.ts).
 * The analysis of a real study is the same, value for value, whether the analyses read those
 * views or the rows the store's pages build as plain records: for the run-time outcome and for a
 * stored scorer, with the integrity facts the directory's read gathers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { integrityFactsReader } from "../../src/analysis/core/integrity-facts.js";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import { releaseRecordedStudy } from "../../src/analysis/core/recorded-study.js";
import { analyzeStudy } from "../../src/analysis/core/study.js";
import { type AnalysisRow, loadScoredStudyTable, scoredTablePages } from "../../src/analysis/core/table.js";
import { plainRow } from "../../src/analysis/core/trial-columns.js";
import { runScoredDemoStudy } from "../helpers/scored-study.js";

const NOW = () => new Date("2030-01-01T00:00:00.000Z");

describe("the analysis of a study's columns", () => {
  it("equals the analysis of the same rows as plain records", async () => {
    // A stored scorer of some trials: its rows are columns of their own, the rest unscored.
    const { outDir, store, run, trials } = await runScoredDemoStudy(
      {
        items: 24,
        facets: "    scaffold: [direct, cot]\n    format: [mc, oe]\n    perturbation: [none, choice_reorder]",
      },
      { trials: (all) => all.slice(0, 60), score: (i) => (i % 3 === 0 ? 0 : 1) },
    );
    try {
      const reader = integrityFactsReader(outDir, store, run);
      const table = await loadScoredStudyTable(store, run, outDir, { onTrials: (page) => reader.add(page) });
      const integrityFacts = await reader.facts();
      releaseRecordedStudy();
      // The same rows as the store's pages build them, plain records read from no columns.
      const runTime: AnalysisRow[] = [];
      const strict: AnalysisRow[] = [];
      for await (const page of scoredTablePages(store, run, trials.length)) {
        runTime.push(...page.runTime);
        strict.push(...(page.byScorer.get("strict") ?? []));
      }
      const plain = { ...table, rows: [...runTime, ...strict] };
      assert.equal(strict.length, runTime.length, "the stored scorer has a row of every trial");
      assert.ok(
        table.rows.every((row) => row !== plainRow(row)),
        "the loaded rows are views of the columns, not plain records",
      );
      const plan = normalizePlan(run.spec.analysis);
      for (const scorer of [undefined, "strict"]) {
        const options = { integrityFacts, now: NOW, ...(scorer ? { scorer } : {}) };
        const fromColumns = JSON.stringify(await analyzeStudy(table, plan, options));
        const fromRecords = JSON.stringify(await analyzeStudy(plain, plan, options));
        assert.equal(fromColumns, fromRecords, `the analysis of scorer ${scorer ?? "run-time"}`);
        const analysis = JSON.parse(fromColumns) as { counts: { analysed: number } };
        assert.ok(analysis.counts.analysed > 0, `scorer ${scorer ?? "run-time"}: rows were analysed`);
      }
    } finally {
      await store.close();
    }
  });
});
