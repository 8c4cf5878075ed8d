import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ordinalTrendTest } from "../../src/stats/models/index.js";
import { simulate } from "./models-simulate.js";

const complexity = { direct: 0, react: 1, multi_agent: 2, map_reduce: 3 };

describe("ordinal trend test", () => {
  it("recovers a planted per-step slope with cluster-robust SEs; one-sided p halves the two-sided one", () => {
    const data = simulate(
      {
        models: ["m1", "m2", "m3"],
        configs: Object.keys(complexity),
        benchmarks: ["b1", "b2"],
        casesPerBenchmark: 250,
        intercept: 1,
        config: { react: -0.2, multi_agent: -0.4, map_reduce: -0.6 },
        model: { m2: 0.3 },
        benchmark: { b2: -0.4 },
        caseSd: 0.8,
      },
      21,
    );
    const result = ordinalTrendTest(data, {
      response: "outcome",
      variable: "config",
      scores: complexity,
      covariates: ["model", "benchmark"],
      cluster: "case_id",
      alternative: "less",
    });
    // The case effect attenuates marginal coefficients (by ~1/sqrt(1 + 0.35 * 0.64)), so compare loosely.
    assert.ok(result.slope < -0.1 && result.slope > -0.3, `slope ${result.slope}`);
    assert.equal(result.covariance, "cluster");
    assert.ok(result.z < -5, "expected result.z < -5");
    assert.ok(
      Math.abs(result.p - result.pTwoSided / 2) < 1e-15,
      "expected Math.abs(result.p - result.pTwoSided / 2) < 1e-15",
    );
    assert.ok(
      Math.abs(result.oddsRatio - Math.exp(result.slope)) < 1e-15,
      "expected Math.abs(result.oddsRatio - Math.exp(result.slope)) < 1e-15",
    );
  });

  it("does not find a trend when configurations have no effect", () => {
    const data = simulate(
      {
        models: ["m1"],
        configs: Object.keys(complexity),
        benchmarks: ["b1"],
        casesPerBenchmark: 300,
        intercept: 0.5,
        caseSd: 0.5,
      },
      22,
    );
    const result = ordinalTrendTest(data, {
      response: "outcome",
      variable: "config",
      scores: complexity,
      cluster: "case_id",
    });
    assert.ok(result.pTwoSided > 0.01, `p = ${result.pTwoSided}`);
    assert.throws(
      () => ordinalTrendTest(data, { response: "outcome", variable: "config", scores: { direct: 0 } }),
      /no score for 'react'|no score for/,
    );
  });
});
