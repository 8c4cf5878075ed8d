/**
 * bench:paper-scale --design audit: examples/audit.yaml's design (benchmarks, samples, facets,
 * exclusions, scoring and analysis plan) with simulated models only, which `plan` accepts at the
 * paper's size. Planning needs the published files in ../shared/datasets; skips without them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe } from "node:test";
import { parse, stringify } from "yaml";
import { auditSpec } from "../../bench/paper-scale.js";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { describeNeeding, it, needsSharedData } from "../helpers/prerequisites.js";

const AUDIT = resolve(import.meta.dirname, "..", "..", "examples", "audit.yaml");

interface Benchmark {
  id: string;
  loader: string;
  source: string;
  sample: { n: number; seed: number };
}

const design = (spec: Record<string, unknown>) => ({
  benchmarks: (spec.benchmarks as Benchmark[]).map(({ id, loader, sample }) => ({ id, loader, sample })),
  conditions: spec.conditions,
  scoring: spec.scoring,
  analysis: spec.analysis,
});

describe("bench:paper-scale's audit design", () => {
  it("keeps examples/audit.yaml's design with simulated models in place of the llama ones", () => {
    const paper = parse(readFileSync(AUDIT, "utf8"));
    const spec = auditSpec(1);
    assert.deepEqual(design(spec), design(paper));
    const models = spec.models as Array<{ provider: string; params: unknown }>;
    assert.equal(models.length, paper.models.length, "one simulated model per model of the paper");
    for (const model of models) {
      assert.equal(model.provider, "sim");
      assert.deepEqual(model.params, paper.models[0].params, "the paper's decoding parameters");
    }
  });

  it("scales only the samples with --fraction", () => {
    const spec = auditSpec(0.1);
    const samples = (spec.benchmarks as Benchmark[]).map((b) => b.sample.n);
    assert.deepEqual(samples, [20, 20, 20, 20, 20]);
    const { benchmarks, ...rest } = design(spec);
    const { benchmarks: paperBenchmarks, ...paperRest } = design(auditSpec(1));
    assert.deepEqual(rest, paperRest);
    assert.deepEqual(
      benchmarks.map((b) => b.id),
      paperBenchmarks.map((b) => b.id),
    );
  });
});

describeNeeding(needsSharedData(), "bench:paper-scale's audit spec on the shared data", () => {
  it("is accepted by plan at the paper's trial count", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-paper-scale-audit-"));
    try {
      const specPath = join(dir, "study.yaml");
      writeFileSync(specPath, stringify(auditSpec(1)));
      const plan = summarisePlan(await prepareStudy(specPath));
      // The original plus 4 families x 3 perturbations x 3 seeds, on 5 benchmarks x 2 scoring
      // paths but CrowS-Pairs' free-form one, 200 items each, for 2 models.
      const conditions = 1 + 4 * 3 * 3;
      assert.equal(plan.trials, 2 * conditions * (5 * 2 - 1) * 200);
      assert.equal(plan.estimatedCostUsd, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
