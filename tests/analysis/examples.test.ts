/**
 * The scaffold-safety example plans without calling anything: its datasets load through the
 * loaders (from ../shared/datasets; skipped when absent) and its analysis plan resolves
 * against its own condition grid.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, it } from "node:test";
import { normalizePlan, resolvePlan, specFacetLevels } from "../../src/analysis/index.js";
import { loadSpec } from "../../src/core/spec-loader.js";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import { plantedTable } from "./helpers.js";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const specPath = join(repoRoot, "examples", "scaffold-safety.yaml");
const datasets = resolve(repoRoot, "..", "shared", "datasets");

/** Why the real-file plan cannot run here (a source the shared copy lacks), or false. */
function missingSources(): string | false {
  if (!existsSync(datasets)) return `datasets not found at ${datasets}`;
  const missing = loadSpec(specPath)
    .spec.benchmarks.map((b) => resolve(repoRoot, "examples", b.source!))
    .filter(
      (path) =>
        !existsSync(path) || (path.endsWith("sycophancy") && !readdirSync(path).some((f) => f.endsWith(".jsonl"))),
    );
  return missing.length === 0
    ? false
    : `published files not in ${datasets}: ${missing.join(", ")} (README: "Data for the ScaffoldSafety example"; tests/examples/scaffold-safety.test.ts plans the design with stand-ins)`;
}

describe("examples/scaffold-safety.yaml", () => {
  it("validates, and its analysis plan resolves against its own conditions", () => {
    const { spec } = loadSpec(specPath);
    const plan = normalizePlan(spec.analysis);
    assert.equal(plan.bootstrap.resamples, spec.analysis?.bootstrap?.resamples);
    const levels = specFacetLevels(spec).scaffold;
    const table = plantedTable({
      seed: 1,
      models: { a: 0, b: 0 },
      benchmarks: ["bbq"],
      itemsPerBenchmark: 3,
      effects: Object.fromEntries(levels.map((l) => [l, 0])),
    });
    const resolved = resolvePlan(plan, table);
    assert.equal(resolved.reference, "direct");
    assert.deepEqual(resolved.trend?.order, ["direct", "react(max_iterations=5)", "critic(rounds=2)", "map_reduce"]);
    assert.deepEqual(resolved.notes, []);
  });

  it("plans the full design from the real files without calling a model", {
    skip: missingSources(),
  }, async () => {
    const study = await prepareStudy(specPath);
    const summary = summarisePlan(study);
    // The expected design is read from the spec itself: models, the facet grid (no exclusions
    // here, so the product of the facets' value counts), each benchmark's sample size.
    const { spec } = loadSpec(specPath);
    assert.equal(spec.conditions.exclude?.length ?? 0, 0, "the grid below assumes no exclusions");
    const conditions = Object.values(spec.conditions.facets).reduce((n, values) => n * values.length, 1);
    const items = spec.benchmarks.map((b) => [b.id, b.sample?.n]);
    assert.ok(
      items.every(([, n]) => typeof n === "number" && n > 0),
      "every benchmark is sampled to a size",
    );
    assert.equal(summary.models, spec.models.length);
    assert.equal(summary.conditions, conditions);
    assert.deepEqual(
      study.manifest.benchmarks.map((b) => [b.id, b.items.length]),
      items,
    );
    const total = items.reduce((t, [, n]) => t + (n as number), 0);
    assert.equal(summary.trials, spec.models.length * conditions * total * spec.attempts);
  });
});
