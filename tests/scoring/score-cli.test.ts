/**
 * The score stage end to end on the simulated panel: the planner refuses impossible cells before
 * writing anything, and `parallax score DIR` (spawned once) re-scores a small study without
 * calling the model, stores one score per trial and scorer, and prints per-cell parse failures.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, test } from "node:test";
import { exportTable } from "../../src/run/export/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";

function refusedWithExit2(error: Error & { exitCode?: number }, pattern: RegExp): boolean {
  assert.match(error.message, pattern);
  assert.equal(error.exitCode, 2);
  return true;
}

describe("planner refusals", () => {
  test("a log-prob cell on sim (no continuation_logprobs) is refused, nothing written", async () => {
    const { specPath, outDir } = writeDemoSpec({
      items: 2,
      facets: "    format: [mc]\n    scoring_path: [free_form, logprob]",
    });
    await assert.rejects(runStudy({ specPath, outDir, env: {} }), (e: Error) =>
      refusedWithExit2(e, /no continuation_logprobs capability/),
    );
    assert.equal(existsSync(outDir), false);
  });

  test("a log-prob cell with a scaffold is refused (the scaffold would be a silent no-op)", async () => {
    const { specPath, outDir } = writeDemoSpec({
      items: 2,
      facets: "    scaffold: [react]\n    scoring_path: [logprob]",
    });
    await assert.rejects(runStudy({ specPath, outDir, env: {} }), (e: Error) =>
      refusedWithExit2(e, /bypasses the scaffold/),
    );
    assert.equal(existsSync(outDir), false);
  });

  test("a judge equal to the subject model is refused, by id or by provider and model", async () => {
    for (const judges of ["[sim-a]", "[{id: other, provider: sim, model: medium}]"]) {
      const { specPath, outDir } = writeDemoSpec({ items: 2 });
      const { appendFileSync } = await import("node:fs");
      appendFileSync(specPath, `scoring:\n  judges: ${judges}\n`);
      await assert.rejects(runStudy({ specPath, outDir, env: {} }), (e: Error) =>
        refusedWithExit2(e, /never judges its own responses/),
      );
      assert.equal(existsSync(outDir), false);
    }
  });

  test("an unknown scoring path is refused", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 1, facets: "    scoring_path: [telepathy]" });
    await assert.rejects(runStudy({ specPath, outDir, env: {} }), (e: Error) =>
      refusedWithExit2(e, /unknown scoring_path/),
    );
  });
});

describe("parallax score (end to end on sim)", () => {
  test("re-scores stored trials with the default scorers and prints per-cell parse failures", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 6, facets: "    format: [mc, oe]" });
    const run = await runStudy({ specPath, outDir, env: {} });
    assert.equal(run.counts.finished, 12);
    const cli = runCli(["score", outDir]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /scored 12 trial\(s\)/);
    assert.match(cli.stdout, /sim-a \| format=mc \| demo \| mc_last_answer: 0\/6 \(0\.0%\)/);
    assert.match(cli.stdout, /sim-a \| format=oe \| demo \| exact_answer: \d\/6/);

    const store = await openStore(outDir);
    try {
      const runRecord = (await store.getRun())!;
      const scores = await store.listScores(runRecord.id);
      assert.equal(scores.length, 12);
      const trials = await store.listTrials(runRecord.id);
      // The re-score agrees with the run-time score on every trial (same scorers, same responses).
      for (const trial of trials) {
        const score = scores.find((s) => s.trialId === trial.id)!;
        assert.equal(score.score, trial.outcome!.score, trial.id);
        assert.equal(score.parseStatus, trial.outcome!.parseStatus);
      }
      // Export with --scorer takes the stored scores; a scorer with no scores leaves outcomes empty.
      let csv = "";
      await exportTable(
        store,
        { runId: runRecord.id, facets: ["format"], table: "trials", format: "csv", scorer: "mc_last_answer" },
        (c) => (csv += c),
      );
      const rows = csv.trim().split("\n").slice(1);
      assert.equal(rows.length, 12);
      const mcRows = rows.filter((r) => r.includes(",mc,"));
      assert.ok(mcRows.length > 0 && mcRows.length < rows.length, "the export has MC rows (and others)");
      assert.ok(
        mcRows.every((r) => /,finished,[01],ok,[A-D],/.test(r)),
        "expected mcRows.every((r) => /,finished,[01],ok,[A-D],/.test(r))",
      );
      let none = "";
      await exportTable(
        store,
        { runId: runRecord.id, facets: ["format"], table: "trials", format: "csv", scorer: "gaia_exact" },
        (c) => (none += c),
      );
      assert.ok(
        none
          .trim()
          .split("\n")
          .slice(1)
          .every((r) => /,finished,,,,/.test(r)),
        'expected none .trim() .split("\\n") .slice(1) .every((r) => /,finished,,,,/.test(r))',
      );
    } finally {
      await store.close();
    }
  });

  test("refuses (exit 2) a study whose stored tasks differ from today's rendering; --rerender scores anyway", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 3, facets: "    format: [mc]" });
    await runStudy({ specPath, outDir, env: {} });
    // As if the prompt code had changed since the run: the stored hashes no longer match.
    const db = new Database(join(outDir, "parallax.db"));
    db.prepare("update trials set task_hash = 'x' || task_hash where item_id <> 'q001'").run();
    db.close();
    const refused = runCli(["score", outDir]);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /2 of 3 finished trial\(s\)/);
    assert.match(refused.stderr, /--rerender/);
    const rerendered = runCli(["score", outDir, "--rerender"]);
    assert.equal(rerendered.status, 0, rerendered.stderr);
    assert.match(rerendered.stdout, /scored 3 trial\(s\)/);
    assert.match(rerendered.stdout, /note: 2 trial\(s\) scored against today's rendering/);
  });
});
