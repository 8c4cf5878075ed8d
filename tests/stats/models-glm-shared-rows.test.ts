// The GLM's shared-row passes (each distinct design row's link terms formed once) against the
// per-row passes: the same fit to the last bit, and the planted effects recovered.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  aliasedColumns,
  binomialRegression,
  buildDesign,
  coefficientTable,
  type GlmFit,
  rowPatterns,
} from "../../src/stats/models/index.js";
import { simulate } from "./models-simulate.js";

const plan = {
  models: ["gpt", "llama", "qwen"],
  configs: ["direct", "map_reduce", "react"],
  benchmarks: ["bbq", "xstest"],
  casesPerBenchmark: 300,
  intercept: 0.6,
  model: { llama: -0.5, qwen: 0.3 },
  config: { map_reduce: -0.8, react: -0.2 },
  benchmark: { xstest: 0.4 },
  caseSd: 0.7,
};

const options = { factors: { config: { reference: "direct" } }, cluster: "case_id" };

/** Every number of the fit, so two fits compare bit for bit. */
function numbersOf(fit: GlmFit): Record<string, unknown> {
  return {
    coefficients: [...fit.coefficients],
    model: [...fit.covariance.model],
    hc0: [...fit.covariance.hc0],
    hc1: [...fit.covariance.hc1],
    cluster: [...(fit.covariance.cluster ?? [])],
    fitted: [...fit.fitted],
    logLik: fit.logLik,
    pearson: fit.pearsonChi2,
    iterations: fit.iterations,
    aliased: fit.aliased,
  };
}

describe("GLM passes over shared design rows", () => {
  for (const [formula, link] of [
    ["outcome ~ config + model + benchmark", "logit"],
    ["outcome ~ config + model + benchmark + config:model", "logit"],
    ["outcome ~ config + model + benchmark", "probit"],
  ] as const) {
    it(`fits ${formula} (${link}) to the last bit of the per-row passes`, () => {
      const data = simulate(plan, 7);
      const shared = binomialRegression(data, formula, { ...options, link });
      const each = binomialRegression(data, formula, { ...options, link, rowPasses: "each" });
      assert.deepStrictEqual(numbersOf(shared), numbersOf(each));
    });
  }

  it("keeps an aliased column's handling (a model column equal to a benchmark column)", () => {
    const data = simulate(plan, 11);
    // "copy" repeats the benchmark under other labels: its column is aliased.
    const table = { ...data, copy: data.benchmark.map((b) => (b === "bbq" ? "one" : "two")) };
    const shared = binomialRegression(table, "outcome ~ config + benchmark + copy", options);
    const each = binomialRegression(table, "outcome ~ config + benchmark + copy", { ...options, rowPasses: "each" });
    assert.equal(shared.aliased.length, 1, "the copied column is aliased");
    assert.deepStrictEqual(numbersOf(shared), numbersOf(each));
  });

  it("recovers the planted configuration effects inside their 99% cluster-robust intervals", () => {
    const data = simulate({ ...plan, caseSd: 0 }, 3);
    const fit = binomialRegression(data, "outcome ~ config + model + benchmark", options);
    const rows = coefficientTable(fit, "cluster", 0.99);
    for (const [name, planted] of [
      ["config[T.map_reduce]", -0.8],
      ["config[T.react]", -0.2],
    ] as const) {
      const row = rows.find((r) => r.name === name);
      assert.ok(row, `a coefficient for ${name}`);
      assert.ok(
        row.ciLower < planted && planted < row.ciUpper,
        `${name}: ${planted} in [${row.ciLower}, ${row.ciUpper}]`,
      );
    }
  });

  it("numbers each distinct design row once, in first-seen order", () => {
    const table = { a: ["x", "y", "x", "z", "y", "x"], b: ["p", "p", "p", "q", "p", "q"] };
    const design = buildDesign(table, { terms: ["a", "b"] });
    const patterns = rowPatterns(design);
    assert.deepStrictEqual([...patterns.of], [0, 1, 0, 2, 1, 3]);
    assert.deepStrictEqual([...patterns.first], [0, 1, 3, 5]);
    assert.equal(patterns.count, 4);
    assert.deepStrictEqual(aliasedColumns(design), [], "four distinct rows of four columns are of full rank");
  });
});
