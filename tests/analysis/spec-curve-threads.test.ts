import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { closeSpecCurveWorkers, normalizePlan, specificationCurve } from "../../src/analysis/index.js";
import type { CurveSummary } from "../../src/stats/index.js";
import { plantedTable } from "./helpers.js";

after(() => closeSpecCurveWorkers());

describe("specification curve permutation test on worker threads", () => {
  const planted = plantedTable({
    seed: 31,
    models: { "m-a": 0, "m-b": 0.05, "m-c": -0.05 },
    benchmarks: ["bbq", "tqa", "xst"],
    itemsPerBenchmark: 60,
    effects: { direct: 0, react: -0.03, map_reduce: -0.12 },
    parseFailureRate: 0.05,
  });
  const curveOn = async (threads: number, permutations: number) => {
    let nullSummaries: readonly CurveSummary[] = [];
    const curve = await specificationCurve({
      rows: planted.rows,
      facet: "scaffold",
      reference: "direct",
      contrast: "map_reduce",
      facets: planted.facets,
      plan: normalizePlan({
        specification_curve: {
          dimensions: ["benchmark_subset", "model_subset", "population", "link", "firth"],
          permutations,
          seed: 5,
          glmm: false,
        },
      }),
      threads,
      onNullSummaries: (summaries) => {
        nullSummaries = summaries;
      },
    });
    return { curve: curve!, nullSummaries };
  };

  it("gives the one-thread null curves, p values and notes with 2 and 3 threads", async () => {
    const one = await curveOn(1, 11);
    assert.ok(one.curve.permutation, "expected a permutation test");
    assert.ok(one.curve.summary.medianOddsRatio < 1, `planted effect: median OR ${one.curve.summary.medianOddsRatio}`);
    assert.equal(one.nullSummaries.length, 11);
    // Each worker fits one of the last permutations itself, so these compare fits made on workers.
    for (const threads of [2, 3]) {
      const split = await curveOn(threads, 11);
      assert.deepEqual(split.nullSummaries, one.nullSummaries, `threads ${threads}: null curves`);
      assert.deepEqual(split.curve, one.curve, `threads ${threads}`);
    }
  });

  it("rejects, instead of hanging, when a worker stops while fitting its permutations", async () => {
    await assert.rejects(
      specificationCurve({
        rows: planted.rows,
        facet: "scaffold",
        reference: "direct",
        contrast: "map_reduce",
        facets: planted.facets,
        plan: normalizePlan({ specification_curve: { permutations: 11, seed: 5, glmm: false } }),
        threads: 2,
        // The worker is stopped as soon as it has its permutations.
        onPermutationsStarted: () => void closeSpecCurveWorkers(),
      }),
      /worker thread exited/,
    );
    // The next curve starts a fresh worker.
    const again = await curveOn(2, 11);
    assert.deepEqual(again.curve, (await curveOn(1, 11)).curve);
  });
});
