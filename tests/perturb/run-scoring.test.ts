/**
 * A perturbed trial is scored against the item as perturbed: choice reordering moves the gold
 * option, so scoring against the original item would mark the right answer wrong.
 */
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { openScoringContext, rescoreStudy } from "../../src/run/score/index.js";
import { openStore } from "../../src/run/store/open.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { itemsYaml, type StudyResult, writeSpec } from "../scaffolds/helpers.js";

const SIM_MODEL = "  - id: sim-strong\n    provider: sim\n    model: strong";
const ITEMS = 24;

describe("run and rescoring score perturbed trials against the perturbed item", () => {
  let study: StudyResult;
  let outDir: string;
  before(async () => {
    const spec = writeSpec({
      models: SIM_MODEL,
      facets: "    scaffold: [direct]\n    format: [mc]\n    perturbation: [none, choice_reorder]",
      items: itemsYaml(ITEMS),
    });
    outDir = spec.outDir;
    await runStudy({ specPath: spec.specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      const trials = await store.listTrials(run.id);
      const calls = await store.listCalls(run.id);
      study = { trials, calls, callsOf: (id) => calls.filter((c) => c.trialId === id) };
    } finally {
      await store.close();
    }
  });

  const perturbationOf = (t: StudyResult["trials"][number]) => {
    const value = t.condition.perturbation;
    return typeof value === "object" ? value.name : String(value);
  };

  test("every trial finishes and parses", () => {
    assert.equal(study.trials.length, 2 * ITEMS);
    for (const trial of study.trials) {
      assert.equal(trial.status, "finished", trial.outcome?.errorMessage ?? "");
      assert.equal(trial.outcome?.parseStatus, "ok");
    }
  });

  test("the same answer content scores the same with and without reordering", () => {
    // The sim reads which option text is right; a reordered trial that names the same option
    // text must score as its unperturbed twin does.
    const byItem = new Map<string, Map<string, number | null | undefined>>();
    for (const trial of study.trials) {
      const entry = byItem.get(trial.itemId) ?? new Map();
      entry.set(perturbationOf(trial), trial.outcome?.score);
      byItem.set(trial.itemId, entry);
    }
    const accuracy = (name: string) =>
      study.trials.filter((t) => perturbationOf(t) === name && t.outcome?.score === 1).length / ITEMS;
    assert.ok(accuracy("none") > 0.5, `unperturbed accuracy ${accuracy("none")}`);
    assert.ok(
      Math.abs(accuracy("choice_reorder") - accuracy("none")) <= 0.25,
      `reordered ${accuracy("choice_reorder")} vs unperturbed ${accuracy("none")}`,
    );
  });

  test("reordering moved the answer letter: the stored answers differ for some items", () => {
    const answers = (name: string) =>
      new Map(study.trials.filter((t) => perturbationOf(t) === name).map((t) => [t.itemId, t.outcome?.parsedAnswer]));
    const none = answers("none");
    const moved = [...answers("choice_reorder")].filter(([id, letter]) => none.get(id) !== letter).length;
    assert.ok(moved >= ITEMS / 4, `only ${moved} of ${ITEMS} answers changed letter`);
  });

  test("rescoring reads the perturbed item too: every rescored score equals the run's", async () => {
    const context = await openScoringContext(outDir);
    try {
      await rescoreStudy(context, { scorer: "mc_last_answer" });
      const scores = await context.store.listScores(context.run.id, { scorer: "mc_last_answer" });
      assert.equal(scores.length, study.trials.length);
      const runScore = new Map(study.trials.map((t) => [t.id, t.outcome?.score]));
      for (const record of scores) assert.equal(record.score, runScore.get(record.trialId), record.trialId);
    } finally {
      await context.store.close();
    }
  });
});
