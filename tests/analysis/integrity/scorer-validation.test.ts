/**
 * The scorer-validation integrity check (issue 11): scorers declare the benchmarks (loaders) and
 * formats they are validated for; a cell whose outcomes come from a scorer not marked validated
 * for its benchmark and format gets a warning (never a downgrade).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeDirectory, analyzeStudy, normalizePlan, type StudyAnalysis } from "../../../src/analysis/index.js";
import type { ScoringFacts } from "../../../src/analysis/integrity/registry.js";
import { runStudy } from "../../../src/run/execute/run-study.js";
import { openStore } from "../../../src/run/store/open.js";
import { scorers, validatedFor } from "../../../src/scoring/index.js";
import type { Scorer } from "../../../src/scoring/types.js";
import { writeDemoSpec } from "../../helpers/study.js";
import { plantedTable } from "../helpers.js";

const FAST = { bootstrap: { resamples: 200 }, specification_curve: false as const };

/** A plugin's scorer describes where it is validated in its own definition. */
const pluginScorer: Scorer = {
  name: "test_validated_open",
  version: "1.0.0",
  kind: "text",
  validated: [{ loaders: ["gaia"], formats: ["oe"], evidence: "a test table" }],
  score: () => ({ parsedAnswer: null, parseStatus: "failed", score: 0 }),
};
if (!scorers.has(pluginScorer.name)) scorers.register(pluginScorer.name, pluginScorer);

/** b1 (bbq) scored by mc_last_answer on MC, b2 (gaia) by `openScorer` on open-ended tasks. */
function study(openScorer: string) {
  const table = plantedTable({
    seed: 3,
    models: { m1: 0 },
    benchmarks: ["b1", "b2"],
    itemsPerBenchmark: 30,
    effects: { direct: 0, cot: -0.05 },
  });
  const trials = new Map<string, { scorer: string | null; format: string | null }>();
  table.rows.forEach((row, i) => {
    row.trialId = `t${i}`;
    trials.set(
      row.trialId,
      row.benchmark === "b1" ? { scorer: "mc_last_answer", format: "mc" } : { scorer: openScorer, format: "oe" },
    );
  });
  const scoring: ScoringFacts = { loaders: { b1: "bbq", b2: "gaia" }, trials };
  return { table, scoring };
}

function scorerCheck(result: StudyAnalysis) {
  const found = result.integrity.checks.find((c) => c.check === "scorer_validation");
  assert.ok(found, "the scorer-validation check is reported");
  return found;
}

describe("scorer validation", () => {
  it("scorers mark where they are validated", () => {
    assert.ok(
      validatedFor(scorers.get("mc_last_answer"), "bbq", "mc"),
      'expected validatedFor(scorers.get("mc_last_answer"), "bbq", "mc")',
    );
    assert.ok(
      !validatedFor(scorers.get("mc_last_answer"), "bbq", "oe"),
      'expected !validatedFor(scorers.get("mc_last_answer"), "bbq", "oe")',
    );
    assert.ok(
      validatedFor(scorers.get("gaia_exact"), "gaia", "oe"),
      'expected validatedFor(scorers.get("gaia_exact"), "gaia", "oe")',
    );
    assert.ok(
      !validatedFor(scorers.get("gaia_exact"), "truthfulqa_gen", "oe"),
      'expected !validatedFor(scorers.get("gaia_exact"), "truthfulqa_gen", "oe")',
    );
    assert.ok(
      !validatedFor(scorers.get("exact_answer"), "gaia", "oe"),
      'expected !validatedFor(scorers.get("exact_answer"), "gaia", "oe")',
    );
  });

  it("warns on the cells scored by a scorer not validated for their benchmark and format, downgrading nothing", async () => {
    const { table, scoring } = study("exact_answer");
    const result = await analyzeStudy(table, normalizePlan(FAST), { integrityFacts: { scoring } });
    const check = scorerCheck(result);
    assert.equal(check.status, "warn");
    assert.deepEqual(check.cells.map((c) => `${c.condition}/${c.benchmark}`).sort(), ["cot/b2", "direct/b2"]);
    assert.equal(check.cells[0].reason, "scorer not marked validated: exact_answer on gaia / oe (30 trials)");
    assert.deepEqual(check.downgraded, []);
    assert.equal(result.integrity.failed, false);
    // The section stamps which scorer produced the numbers, with the scored trials of each.
    const perBenchmark = table.rows.filter((r) => r.benchmark === "b1" && !r.errored && r.outcome !== null).length;
    assert.match(
      check.detail,
      new RegExp(`^scored by exact_answer \\(b2 / oe\\): \\d+, mc_last_answer \\(b1 / mc\\): ${perBenchmark}; `),
    );
  });

  it("passes when every scorer is validated there (a plugin scorer's own declaration counts)", async () => {
    for (const name of ["gaia_exact", pluginScorer.name]) {
      const { table, scoring } = study(name);
      const result = await analyzeStudy(table, normalizePlan(FAST), { integrityFacts: { scoring } });
      assert.equal(scorerCheck(result).status, "pass", `${name}: ${scorerCheck(result).detail}`);
    }
  });

  it("the share is read from the plan; not available without what scored each trial", async () => {
    const { table, scoring } = study("exact_answer");
    const lenient = normalizePlan({ ...FAST, integrity: { unvalidated_scorer: 1 } });
    assert.equal(scorerCheck(await analyzeStudy(table, lenient, { integrityFacts: { scoring } })).status, "pass");
    assert.equal(scorerCheck(await analyzeStudy(table, normalizePlan(FAST))).status, "not available");
  });

  it("a study directory: the run-time scorer and the task's format of every trial", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 8 });
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      const { analysis } = await analyzeDirectory(outDir, store, run, { plan: normalizePlan(FAST) });
      const check = scorerCheck(analysis);
      // The demo study compares formats: MC is scored by mc_last_answer (validated for any
      // benchmark's MC), open-ended by exact_answer, validated nowhere.
      assert.equal(check.status, "warn", check.detail);
      assert.deepEqual(
        check.cells.map((c) => `${c.condition}/${c.benchmark}: ${c.reason}`),
        ["oe/demo: scorer not marked validated: exact_answer on inline / oe (8 trials)"],
      );
    } finally {
      await store.close();
    }
  });
});
