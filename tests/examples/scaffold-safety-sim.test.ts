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
import { assignJudges } from "../../src/run/score/judges.js";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";

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
    // The same families: names, roles, benchmarks, conditions, and one simulated respondent per model.
    const shape = (spec: typeof sim) =>
      Object.entries(spec.families ?? {}).map(([name, f]) => [
        name,
        f.role,
        f.benchmarks,
        f.conditions,
        f.exclude,
        f.models?.length ?? spec.models.length,
      ]);
    assert.deepEqual(shape(sim), shape(real));
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

  it("plans each family on its own sample, the trials families share once, at no cost", {
    skip: existsSync(DATASETS) ? false : `${DATASETS} not found (the shared materials beside the checkout)`,
  }, async () => {
    const study = await prepareStudy(SIM);
    assert.deepEqual(study.warnings, []);
    const plan = summarisePlan(study);
    const families = Object.fromEntries(plan.families!.map((f) => [f.name, f]));
    // Each family's trials: its models x its conditions x its sample, from the spec's numbers.
    const spec = study.spec;
    const sampleOf = (name: string, benchmark: string): number => {
      const sample = spec.families![name].sample as Record<string, { n: number }> | { n: number } | undefined;
      if (sample && "n" in sample && typeof sample.n === "number") return sample.n;
      const own = (sample as Record<string, { n: number }> | undefined)?.[benchmark]?.n;
      return own ?? study.manifest.benchmarks.find((b) => b.id === benchmark)!.sample!.n;
    };
    const expected = {
      // 4 configurations x 6 models; BBQ 36 + TruthfulQA 32 + XSTest 24 + OR-Bench 24 + sycophancy 20.
      primary: 6 * 4 * (36 + 32 + 24 + 24 + 20),
      ai_factual_recall: 6 * 4 * 20,
      option_preserving: 5 * 3 * (8 + 8),
      cot: 5 * 3 * (6 + 6 + 6),
      invocation_bias: 6 * 4 * 12,
      invocation_misconception: 6 * 4 * 12,
      format: 5 * 2 * 2 * (4 + 4 + 4 + 4 + 4),
    };
    assert.equal(sampleOf("primary", "bbq"), 36);
    assert.equal(sampleOf("primary", "truthfulqa"), 32);
    assert.deepEqual(Object.fromEntries(Object.entries(families).map(([n, f]) => [n, f.trials])), expected);
    // Shared: option-preserving and CoT's direct and map-reduce trials (primary and control items),
    // the misconception chains' passthrough on primary TruthfulQA items, and the format study's
    // TruthfulQA items under direct and map-reduce in MC.
    const shared = 5 * 2 * 16 + 5 * 2 * 18 + 6 * 12 + 5 * 2 * 4;
    const sum = Object.values(expected).reduce((a, b) => a + b, 0);
    assert.equal(plan.trials, sum - shared);
    assert.equal(plan.estimatedCostUsd, 0);
  });
});
