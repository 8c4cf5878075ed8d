/**
 * examples/scaffold-safety-sim.yaml is examples/scaffold-safety.yaml's design on the simulated
 * panel: the same configurations, benchmarks, judges' roles and analysis plan, six simulated
 * respondents, smaller samples. It loads and plans here (the run itself takes a few minutes on
 * two shared cores, too long for the suite; the README's three commands run it end to end).
 * Needs the published files in ../shared/datasets; skips with a message when they are absent.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { loadSpec } from "../../src/core/spec-loader.js";
import { assignJudges } from "../../src/run/judge.js";
import { summarisePlan } from "../../src/run/plan.js";
import { prepareStudy } from "../../src/run/study.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const SIM = join(repoRoot, "examples", "scaffold-safety-sim.yaml");
const REAL = join(repoRoot, "examples", "scaffold-safety.yaml");
const DATASETS = resolve(repoRoot, "..", "shared", "datasets");

describe("examples/scaffold-safety-sim.yaml", () => {
  it("has the real study's design: conditions, benchmarks, loaders, judges' roles and analysis plan", () => {
    const sim = loadSpec(SIM).spec;
    const real = loadSpec(REAL).spec;
    assert.deepEqual(sim.conditions, real.conditions);
    assert.deepEqual(
      sim.benchmarks.map((b) => [b.id, b.loader]),
      real.benchmarks.map((b) => [b.id, b.loader]),
    );
    assert.equal(sim.models.length, real.models.length, "one simulated respondent per model of the paper");
    assert.ok(
      sim.models.every((m) => m.provider === "sim"),
      'expected sim.models.every((m) => m.provider === "sim")',
    );
    // Same plan apart from the resampling effort.
    const effort = (plan: typeof sim.analysis) => ({ ...plan, bootstrap: undefined, specification_curve: undefined });
    assert.deepEqual(effort(sim.analysis), effort(real.analysis));
    // Simulated judges, none a subject: a primary judge and a 10% validation judge for every model.
    assert.equal(sim.scoring?.validation?.fraction, 0.1);
    for (const { primary, validation } of assignJudges(sim).values()) {
      assert.equal(primary.provider, "sim");
      assert.equal(validation?.provider, "sim");
      assert.notEqual(primary.id, validation?.id);
    }
  });

  it("plans: 6 simulated models x 11 conditions x its items, at no cost", {
    skip: existsSync(DATASETS) ? false : `${DATASETS} not found (the shared materials beside the checkout)`,
  }, async () => {
    const study = await prepareStudy(SIM);
    assert.deepEqual(study.warnings, []);
    const sizes = Object.fromEntries(study.manifest.benchmarks.map((b) => [b.id, b.items.length]));
    // Each benchmark gives its declared sample (every source holds at least that many items).
    const declared = Object.fromEntries(study.spec.benchmarks.map((b) => [b.id, b.sample?.n]));
    assert.deepEqual(sizes, declared);
    const items = Object.values(sizes).reduce((a, b) => a + b, 0);
    const plan = summarisePlan(study);
    assert.equal(plan.models, 6);
    assert.equal(plan.conditions, 11);
    assert.equal(plan.items, items);
    assert.equal(plan.trials, 6 * 11 * items);
    // Calls per trial: direct 1, ReAct 6, critic 5, map-reduce 5 (and with options 5), CoT 1, chains 4.
    // Judge sub-calls: XSTest and OR-Bench (no options: open-ended) are judged at run time; each
    // judged trial expects the primary verdict plus the validation and guessing shares, rounded
    // per model as the plan's estimate is.
    const perJudged =
      1 + (study.spec.scoring?.validation?.fraction ?? 0) + (study.spec.scoring?.blinding.guess_fraction ?? 0);
    const judgeCalls = 6 * Math.round(11 * (sizes.xstest + sizes.or_bench) * perJudged);
    assert.equal(plan.estimatedCalls, 6 * items * (1 + 6 + 5 + 5 + 5 + 1 + 4 * 5) + judgeCalls);
    assert.equal(plan.estimatedCostUsd, 0);
  });
});
