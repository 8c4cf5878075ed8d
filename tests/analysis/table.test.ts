import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { analyzeTableFile, normalizePlan, readTidyTable, resolvePlan } from "../../src/analysis/index.js";
import { analysedRows } from "../../src/analysis/core/plan.js";
import { loadStudyTable } from "../../src/analysis/core/table.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { writeDemoSpec } from "../helpers/study.js";
import { InputError } from "../../src/core/errors.js";

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "parallax-table-")), name);
  writeFileSync(path, text);
  return path;
}

describe("tidy tables", () => {
  it("reads CSV with case_id and parse_failed, facets as the remaining columns", () => {
    const path = file(
      "obs.csv",
      "model,config,benchmark,case_id,attempt,outcome,parse_failed\nm1,direct,bbq,bbq-1,1,1,0\nm1,react,bbq,bbq-1,1,0,1\n",
    );
    const table = readTidyTable(path);
    assert.deepEqual(table.facets, ["config"]);
    assert.equal(table.rows[1].parseFailed, true);
    assert.equal(table.rows[0].cluster, table.rows[1].cluster);
  });

  it("reads JSON lines as parallax export writes them (status, parse_status, audit columns ignored)", () => {
    const rows = [
      {
        model: "m",
        benchmark: "b",
        item_id: "1",
        attempt: 1,
        scaffold: "direct",
        format: "mc",
        outcome: 1,
        parse_status: "ok",
        status: "finished",
        calls: 1,
      },
      {
        model: "m",
        benchmark: "b",
        item_id: "1",
        attempt: 1,
        scaffold: "cot",
        format: "mc",
        outcome: null,
        parse_status: null,
        status: "errored",
        calls: 1,
      },
    ];
    const table = readTidyTable(file("obs.jsonl", rows.map((r) => JSON.stringify(r)).join("\n")));
    assert.deepEqual(table.facets, ["scaffold", "format"]);
    assert.equal(table.rows[1].errored, true);
    assert.equal(table.rows[1].outcome, null);
  });

  it("names file, line, column and what was expected for a bad value", () => {
    const path = file("bad.csv", "model,scaffold,benchmark,item_id,outcome\nm,direct,b,1,1\nm,cot,b,1,0.5\n");
    assert.throws(
      () => readTidyTable(path),
      (error: Error) => {
        assert.ok(error instanceof InputError, "expected error instanceof InputError");
        assert.match(
          error.message,
          /bad\.csv:3: column 'outcome': expected 0 or 1 \(empty when unscored\), found '0\.5'/,
        );
        return true;
      },
    );
    const ragged = file("ragged.csv", "model,scaffold,benchmark,item_id,outcome\nm,direct,b,1\n");
    assert.throws(() => readTidyTable(ragged), /ragged\.csv:2: expected 5 fields .*found 4/);
    const missing = file("missing.csv", "model,scaffold,outcome\nm,direct,1\n");
    assert.throws(() => readTidyTable(missing), /missing column\(s\) benchmark, item_id \(or case_id\)/);
    const json = file("bad.jsonl", '{"model":"m"}\n{oops\n');
    assert.throws(() => readTidyTable(json), /bad\.jsonl:2: not valid JSON/);
    const flag = file("flag.csv", "model,scaffold,benchmark,item_id,outcome,parse_failed\nm,direct,b,1,1,maybe\n");
    assert.throws(() => readTidyTable(flag), /flag\.csv:2: column 'parse_failed': expected 0 or 1, found 'maybe'/);
  });

  it("explains plan problems against the data: unknown facet, unknown reference", async () => {
    const path = file(
      "two.csv",
      "model,scaffold,format,benchmark,item_id,outcome\nm,direct,mc,b,1,1\nm,cot,mc,b,1,0\nm,direct,oe,b,1,1\nm,cot,oe,b,1,1\n",
    );
    const table = readTidyTable(path);
    assert.throws(
      () => resolvePlan(normalizePlan({ comparison_facet: "prompt" }), table),
      /comparison_facet 'prompt' is not a column; facets: scaffold, format/,
    );
    assert.throws(
      () => resolvePlan(normalizePlan({ reference: { scaffold: "react" } }), table),
      /analysis.reference.scaffold: 'react' is not a level; levels: direct, cot/,
    );
    const restricted = resolvePlan(normalizePlan({ reference: { scaffold: "direct", format: "mc" } }), table);
    assert.deepEqual(restricted.restrict, { format: "mc" });
    assert.throws(() => normalizePlan({ equivalence: { margni: 0.02 } } as never), /invalid analysis plan/);
  });

  it("analyses the table's own row list when the plan keeps every row, and a list of the kept rows otherwise", () => {
    const path = file(
      "kept.csv",
      "model,scaffold,format,benchmark,item_id,outcome\nm,direct,mc,b,1,1\nm,cot,mc,b,1,0\nm,direct,oe,b,1,1\nm,cot,oe,b,1,1\n",
    );
    const table = readTidyTable(path);
    const all = analysedRows(table.rows, resolvePlan(normalizePlan({}), table));
    assert.equal(all, table.rows, "every row kept: the table's list itself, not a copy");
    const mc = analysedRows(
      table.rows,
      resolvePlan(normalizePlan({ reference: { scaffold: "direct", format: "mc" } }), table),
    );
    assert.notEqual(mc, table.rows, "a restriction: a list of its own");
    assert.deepEqual(
      mc.map((r) => r.facets.format),
      ["mc", "mc"],
      "only the restricted rows",
    );
    assert.equal(table.rows.length, 4, "the table's list is not changed");
  });

  it("describes a table with one level of the compared facet: rates and checks, no contrast", async () => {
    const single = file("single.csv", "model,scaffold,benchmark,item_id,outcome\nm,direct,b,1,1\nm,direct,b,2,0\n");
    const { analysis } = await analyzeTableFile(single);
    assert.deepEqual(analysis.meta.levels, ["direct"]);
    assert.ok(
      analysis.meta.notes.some((n) => n.startsWith("one level of 'scaffold' (direct)")),
      "a note says why nothing is compared",
    );
    assert.equal(analysis.contrasts, undefined, "no contrast without a second level");
    const all = analysis.rates.find((r) => r.model === "all" && r.benchmark === "all");
    assert.equal(all?.n, 2);
    assert.equal(all?.itt?.rate, 0.5);
    assert.ok(analysis.integrity, "the integrity checks run on a described study");
  });
});

describe("study tables with a stored scorer", () => {
  it("takes outcomes from the named scorer's stored scores, and leaves unscored trials without one", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 6, facets: "    scaffold: [direct, cot]" });
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      const trials = await store.listTrials(run.id);
      // A second scorer that calls every trial but one correct, stored as `parallax score` would.
      const skipped = trials[0].id;
      await store.saveScores(
        trials
          .filter((t) => t.id !== skipped)
          .map((t) => ({
            trialId: t.id,
            scorer: "always_right",
            version: "1",
            parsedAnswer: "A",
            parseStatus: "ok" as const,
            score: 1,
            details: null,
            createdAt: new Date().toISOString(),
          })),
      );
      const runTime = await loadStudyTable(store, run, outDir);
      const stored = await loadStudyTable(store, run, outDir, "always_right");
      assert.equal(stored.source.scorer, "always_right");
      assert.equal(runTime.source.scorer, null);
      assert.ok(
        runTime.rows.some((r) => r.outcome === 0),
        "the run-time scores include wrong answers",
      );
      const byTrial = new Map(stored.rows.map((r) => [r.trialId, r]));
      for (const trial of trials) {
        assert.equal(byTrial.get(trial.id)?.outcome ?? null, trial.id === skipped ? null : 1, trial.id);
      }
    } finally {
      await store.close();
    }
  });
});
