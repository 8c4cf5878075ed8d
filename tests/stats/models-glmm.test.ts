import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  binomialRegression,
  ConvergenceError,
  glmmCoefficientTable,
  glmmRegression,
  likelihoodRatioTest,
} from "../../src/stats/models/index.js";
import { simulate } from "./models-simulate.js";

const Z995 = 2.5758293035489004;

describe("random-intercept logistic GLMM (Laplace)", () => {
  const data = simulate(
    {
      models: ["m1", "m2"],
      configs: ["direct", "react"],
      benchmarks: ["b"],
      casesPerBenchmark: 200,
      attempts: 3,
      intercept: 0.3,
      config: { react: -0.7 },
      model: { m2: 0.5 },
      caseSd: 1,
    },
    11,
  );
  const factors = { config: { reference: "direct" } };

  it("a fit that does not converge is a typed ConvergenceError, which callers tell from a bug", () => {
    assert.throws(
      () => glmmRegression(data, "outcome ~ config + model + (1 | case_id)", { factors, maxIterations: 1 }),
      (error: unknown) => error instanceof ConvergenceError && /did not converge in 1 iterations/.test(error.message),
    );
  });

  it("recovers a planted random-intercept variance and the conditional fixed effects", () => {
    const fit = glmmRegression(data, "outcome ~ config + model + (1 | case_id)", { factors });
    assert.equal(fit.nGroups, 200);
    assert.ok(
      fit.randomInterceptVariance > 0.6 && fit.randomInterceptVariance < 1.6,
      `variance ${fit.randomInterceptVariance}`,
    );
    const truth: Record<string, number> = { Intercept: 0.3, "config[T.react]": -0.7, "model[T.m2]": 0.5 };
    for (const row of glmmCoefficientTable(fit)) {
      assert.ok(Math.abs(row.estimate - truth[row.name]) < Z995 * row.se, `${row.name}: ${row.estimate}`);
    }
    // The Hessian-based SEs account for theta's uncertainty, so they are not smaller than the conditional ones.
    const conditional = glmmCoefficientTable(fit, "conditional");
    glmmCoefficientTable(fit).forEach((row, j) => {
      assert.ok(row.se >= conditional[j].se * 0.999, "expected row.se >= conditional[j].se * 0.999");
    });
    assert.equal(fit.nParameters, 4);
    assert.ok(
      Math.abs(fit.aic - (-2 * fit.logLik + 8)) < 1e-9,
      "expected Math.abs(fit.aic - (-2 * fit.logLik + 8)) < 1e-9",
    );
  });

  it("improves on the GLM, which is its theta = 0 special case, and supports LR tests between nested fits", () => {
    const glm = binomialRegression(data, "outcome ~ config + model", { factors });
    const m1 = glmmRegression(data, "outcome ~ config + model + (1 | case_id)", { factors });
    const m0 = glmmRegression(data, "outcome ~ config + (1 | case_id)", { factors });
    assert.ok(m1.logLik > glm.logLik + 10, "a planted case effect raises the likelihood a lot");
    const lr = likelihoodRatioTest(m0, m1);
    assert.equal(lr.df, 1);
    assert.ok(lr.chi2 > 0 && lr.p < 0.01, `model effect LR p = ${lr.p}`);
  });

  it("gives a near-zero variance when there is no case effect", () => {
    const flat = simulate(
      {
        models: ["m1", "m2"],
        configs: ["direct", "react"],
        benchmarks: ["b"],
        casesPerBenchmark: 150,
        attempts: 2,
        intercept: 0,
      },
      12,
    );
    const fit = glmmRegression(flat, "outcome ~ config + (1 | case_id)", { factors });
    assert.ok(fit.randomInterceptVariance < 0.15, `variance ${fit.randomInterceptVariance}`);
  });
});
