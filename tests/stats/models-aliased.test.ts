/**
 * Aliased design columns, handled as R's glm does: detected by a pivoted QR, left out of the fit
 * (coefficient NaN, R's NA), named, and every test's df counted from the estimable coefficients.
 * The golden case is tests/fixtures/aliased-glm (made by R with make.R beside it): format is a
 * property of the benchmark, as in ScaffoldSafety's main design (Sec. 5.1).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  anova,
  binomialRegression,
  buildDesign,
  cellMoments,
  coefficientTable,
  fitCellGlm,
  glmmCoefficientTable,
  glmmRegression,
  glmWaldTest,
  NotEstimableError,
  NotPositiveDefiniteError,
  ordinalTrendTest,
  RankDeficiencyError,
  termColumnNames,
  termWaldTest,
  waldTest,
} from "../../src/stats/index.js";
import { cholesky, pivotedQr, unlessSingular } from "../../src/stats/models/linalg.js";
import { simulate } from "./models-simulate.js";

const close = (actual: number, expected: number, label: string, tolerance = 1e-6) =>
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${label}: ${actual} vs ${expected}`,
  );

const FIXTURE = new URL("../fixtures/aliased-glm/", import.meta.url);

function readFixture() {
  const [header, ...lines] = readFileSync(new URL("data.csv", FIXTURE), "utf8").trim().split("\n");
  const names = header.split(",");
  const columns: Record<string, string[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (const line of lines) {
    line.split(",").forEach((v, j) => {
      columns[names[j]].push(v);
    });
  }
  const table = { ...columns, outcome: Float64Array.from(columns.outcome, Number) };
  const expected = JSON.parse(readFileSync(new URL("expected.json", FIXTURE), "utf8"));
  return { table, columns, expected };
}

/** Levels of each column, and whether `inner` takes one value per level of `outer`. */
const levels = (column: readonly string[]) => [...new Set(column)];
function nestedIn(inner: readonly string[], outer: readonly string[]): boolean {
  const seen = new Map<string, string>();
  return outer.every((o, i) => {
    if (!seen.has(o)) seen.set(o, inner[i]);
    return seen.get(o) === inner[i];
  });
}

describe("aliased design columns against R's glm (tests/fixtures/aliased-glm)", () => {
  const { table, columns, expected } = readFixture();
  // R's factor level order in make.R: direct first, the rest as listed there.
  const factors = { scaffold: { levels: ["direct", "critic", "map_reduce", "react"] } };
  const fit = binomialRegression(table, "outcome ~ scaffold + benchmark + format", { factors });

  it("drops and names the column R reports NA, with rank and df from the inputs", () => {
    assert.ok(nestedIn(columns.format, columns.benchmark), "the fixture's format is a property of the benchmark");
    const nScaffold = levels(columns.scaffold).length;
    const nBenchmark = levels(columns.benchmark).length;
    // Format adds no rank: its column lies in the benchmark columns' span.
    const rank = 1 + (nScaffold - 1) + (nBenchmark - 1);
    assert.equal(fit.nParameters, rank);
    assert.equal(fit.dfResidual, columns.outcome.length - rank);
    assert.deepEqual(
      fit.aliased.map((a) => a.column),
      ["format[T.oe]"],
    );
    // format[T.oe] is the sum of the indicators of the benchmarks given open-ended.
    const openEnded = levels(columns.benchmark).filter((b) => columns.format[columns.benchmark.indexOf(b)] === "oe");
    assert.deepEqual(
      fit.aliased[0].combinationOf,
      openEnded.map((b) => `benchmark[T.${b}]`),
    );
    // ...and R agrees.
    assert.equal(fit.nParameters, expected.rank);
    assert.equal(fit.dfResidual, expected.df_residual);
    assert.deepEqual(
      fit.aliased.map((a) => a.column),
      expected.aliased,
    );
  });

  it("matches R's coefficients, standard errors (NA for the aliased) and deviance", () => {
    const rows = new Map(coefficientTable(fit, "model").map((r) => [r.name, r]));
    for (const [name, value] of Object.entries(expected.coefficients as Record<string, number | null>)) {
      const j = fit.coefficientNames.indexOf(name);
      assert.ok(j >= 0, `no column ${name}`);
      if (value === null) {
        assert.ok(Number.isNaN(fit.coefficients[j]), `${name} is NA in R`);
        assert.equal(rows.has(name), false, `${name} has no row in the coefficient table`);
        continue;
      }
      close(fit.coefficients[j], value, name);
      close(rows.get(name)!.se, expected.standard_errors[name], `se ${name}`);
    }
    close(fit.deviance, expected.deviance, "deviance");
  });

  it("counts Wald df from the estimable coefficients, as R's vcov does", () => {
    const scaffold = termWaldTest(fit, "scaffold", "model");
    assert.equal(scaffold.df, termColumnNames(fit.design, "scaffold").length);
    close(scaffold.chi2, expected.wald_scaffold.chi2, "Wald chi2 scaffold");
    const names = [...termColumnNames(fit.design, "benchmark"), ...termColumnNames(fit.design, "format")];
    const joint = glmWaldTest(fit, names, "model");
    assert.equal(joint.df, names.length - fit.aliased.length);
    assert.equal(joint.df, expected.wald_benchmark_and_format.df);
    assert.deepEqual(joint.aliased, ["format[T.oe]"]);
    close(joint.chi2, expected.wald_benchmark_and_format.chi2, "Wald chi2 benchmark + format");
    assert.throws(() => termWaldTest(fit, "format", "model"), NotEstimableError);
  });

  it("gives the sequential df R's anova gives, format adding none", () => {
    const terms = ["scaffold", "benchmark", "format"];
    const result = anova(table, { response: "outcome", terms, factors, aliased: "drop" });
    const df = Object.fromEntries(result.type1.map((r) => [r.term, r.df]));
    assert.deepEqual(df, expected.anova_sequential_df);
    assert.deepEqual(
      result.aliased.map((a) => a.column),
      expected.aliased,
    );
  });

  it("still refuses the design when asked to", () => {
    assert.throws(
      () => binomialRegression(table, "outcome ~ scaffold + benchmark + format", { factors, aliased: "error" }),
      (e: unknown) => e instanceof RankDeficiencyError && /'format\[T\.oe\]' is a linear combination/.test(e.message),
    );
  });
});

/** A simulated panel whose format is fixed by the benchmark (xstest open-ended, the rest MC). */
function panelWithFormat(seed: number) {
  const t = simulate(
    {
      models: ["m1", "m2", "m3"],
      configs: ["direct", "critic", "map_reduce"],
      benchmarks: ["bbq", "truthfulqa", "xstest"],
      casesPerBenchmark: 80,
      intercept: 0.4,
      config: { map_reduce: -0.7, critic: 0.3 },
      benchmark: { truthfulqa: -0.4, xstest: 0.6 },
      model: { m2: 0.3, m3: -0.2 },
      caseSd: 0.5,
    },
    seed,
  );
  return { ...t, format: t.benchmark.map((b) => (b === "xstest" ? "oe" : "mc")) };
}

describe("a rank-deficient design with a planted scaffold effect", () => {
  const t = panelWithFormat(7);
  const fit = binomialRegression(t, "outcome ~ config + model + benchmark + format", {
    cluster: "case_id",
    factors: { config: { reference: "direct" } },
  });

  it("recovers the planted effects and names the aliased format column", () => {
    assert.deepEqual(
      fit.aliased.map((a) => a.column),
      ["format[T.oe]"],
    );
    const rows = new Map(coefficientTable(fit).map((r) => [r.name, r]));
    for (const [name, planted] of [
      ["config[T.map_reduce]", -0.7],
      ["config[T.critic]", 0.3],
    ] as const) {
      const r = rows.get(name)!;
      // The case random intercept attenuates marginal effects a little; the interval still covers.
      assert.ok(r.ciLower < planted && planted < r.ciUpper, `${name}: [${r.ciLower}, ${r.ciUpper}] vs ${planted}`);
    }
    const omnibus = termWaldTest(fit, "config");
    assert.equal(omnibus.df, levels(t.config).length - 1);
    assert.ok(omnibus.p < 1e-6, "the planted scaffold effect is significant");
  });

  it("fits the same estimable model as leaving the aliased term out", () => {
    const without = binomialRegression(t, "outcome ~ config + model + benchmark", {
      cluster: "case_id",
      factors: { config: { reference: "direct" } },
    });
    assert.equal(fit.nParameters, without.nParameters);
    close(fit.logLik, without.logLik, "log-likelihood", 1e-10);
    for (const [j, name] of without.coefficientNames.entries()) {
      const i = fit.coefficientNames.indexOf(name);
      close(fit.coefficients[i], without.coefficients[j], name, 1e-9);
      const k = fit.design.nCols;
      const kw = without.design.nCols;
      close(fit.covariance.cluster![i * k + i], without.covariance.cluster![j * kw + j], `var ${name}`, 1e-9);
    }
  });

  it("fits the GLMM on the estimable columns, as lme4 drops aliased fixed effects", () => {
    const small = panelWithFormat(3);
    const factors = { config: { reference: "direct" } };
    const withFormat = glmmRegression(small, "outcome ~ config + benchmark + format + (1 | case_id)", { factors });
    const without = glmmRegression(small, "outcome ~ config + benchmark + (1 | case_id)", { factors });
    assert.deepEqual(
      withFormat.aliased.map((a) => a.column),
      ["format[T.oe]"],
    );
    close(withFormat.logLik, without.logLik, "log-likelihood", 1e-8);
    const rows = new Map(glmmCoefficientTable(withFormat).map((r) => [r.name, r]));
    assert.equal(rows.has("format[T.oe]"), false);
    for (const r of glmmCoefficientTable(without)) {
      close(rows.get(r.name)!.estimate, r.estimate, r.name, 1e-6);
      close(rows.get(r.name)!.se, r.se, `se ${r.name}`, 1e-6);
    }
  });

  it("runs the trend test with a covariate aliased with the benchmark", () => {
    const trend = ordinalTrendTest(t, {
      response: "outcome",
      variable: "config",
      scores: { direct: 0, critic: 1, map_reduce: 2 },
      covariates: ["model", "benchmark", "format"],
      cluster: "case_id",
    });
    assert.deepEqual(
      trend.fit.aliased.map((a) => a.column),
      ["format[T.oe]"],
    );
    assert.ok(trend.slope < 0 && trend.p < 0.05, "the planted decreasing trend is found");
  });

  it("fits the cell-level GLM of the specification curve with the aliased column dropped", () => {
    // Cells: config x benchmark (format follows the benchmark); clusters = cases.
    const configs = levels(t.config);
    const benchmarks = levels(t.benchmark);
    const cellOf = (i: number) => configs.indexOf(t.config[i]) * benchmarks.length + benchmarks.indexOf(t.benchmark[i]);
    const order = t.case_id.map((_, i) => i).sort((a, b) => (t.case_id[a] < t.case_id[b] ? -1 : 1));
    const starts = [0];
    order.forEach((i, r) => {
      if (r > 0 && t.case_id[i] !== t.case_id[order[r - 1]]) starts.push(r);
    });
    starts.push(order.length);
    const nCells = configs.length * benchmarks.length;
    const moments = cellMoments(
      nCells,
      Int32Array.from(starts),
      Int32Array.from(order, cellOf),
      Float64Array.from(order, (i) => t.outcome[i]),
      new Float64Array(order.length).fill(1),
    );
    // Columns: Intercept, critic, map_reduce, truthfulqa, xstest, format oe (= xstest).
    const names = [
      "Intercept",
      "config[T.critic]",
      "config[T.map_reduce]",
      "benchmark[T.truthfulqa]",
      "benchmark[T.xstest]",
      "format[T.oe]",
    ];
    const rowOf = (c: number) => {
      const config = configs[Math.floor(c / benchmarks.length)];
      const benchmark = benchmarks[c % benchmarks.length];
      return [
        1,
        +(config === "critic"),
        +(config === "map_reduce"),
        +(benchmark === "truthfulqa"),
        +(benchmark === "xstest"),
        +(benchmark === "xstest"),
      ];
    };
    const cells = Int32Array.from({ length: nCells }, (_, c) => c);
    const input = { cells, moments, nObs: order.length, nClusters: starts.length - 1, coefficient: 2 };
    const full = fitCellGlm({ ...input, x: Float64Array.from([...cells].flatMap(rowOf)), k: 6, columnNames: names });
    const reduced = fitCellGlm({
      ...input,
      x: Float64Array.from([...cells].flatMap((c) => rowOf(c).slice(0, 5))),
      k: 5,
    });
    assert.deepEqual(
      full.aliased.map((a) => a.column),
      ["format[T.oe]"],
    );
    assert.ok(Number.isNaN(full.coefficients[5]), "the aliased coefficient is NaN, as R's NA");
    close(full.estimate, reduced.estimate, "estimate", 1e-10);
    close(full.se, reduced.se, "cluster SE", 1e-10);
    // The row-level fit without model adjustment gives the same estimate and cluster SE.
    const rowFit = binomialRegression(t, "outcome ~ config + benchmark + format", {
      cluster: "case_id",
      factors: { config: { reference: "direct" } },
    });
    const row = coefficientTable(rowFit).find((r) => r.name === "config[T.map_reduce]")!;
    close(full.estimate, row.estimate, "row-level estimate", 1e-8);
    close(full.se, row.se, "row-level SE", 1e-8);
    assert.throws(
      () => fitCellGlm({ ...input, x: Float64Array.from([...cells].flatMap(rowOf)), k: 6, coefficient: 5 }),
      NotEstimableError,
    );
  });
});

describe("full-rank designs are unchanged", () => {
  it("gives the same fit with aliased columns dropped or refused", () => {
    const t = panelWithFormat(11);
    const formula = "outcome ~ config + model + benchmark";
    const options = { cluster: "case_id", factors: { config: { reference: "direct" } } };
    const dropping = binomialRegression(t, formula, options);
    const strict = binomialRegression(t, formula, { ...options, aliased: "error" });
    assert.deepEqual(dropping.aliased, []);
    assert.equal(dropping.nParameters, dropping.design.nCols);
    assert.deepEqual(Array.from(dropping.coefficients), Array.from(strict.coefficients));
    assert.deepEqual(Array.from(dropping.covariance.cluster!), Array.from(strict.covariance.cluster!));
    const test = termWaldTest(dropping, "config");
    assert.equal(test.df, levels(t.config).length - 1);
    assert.equal(test.redundant, undefined);
    assert.equal(test.aliased, undefined);
  });
});

describe("rank-revealing linear algebra", () => {
  it("pivoted QR moves a dependent column to the end and keeps the order of the rest", () => {
    // Columns: a, b, a + b, c. The third is aliased.
    const rows = [
      [1, 0, 1, 2],
      [0, 1, 1, 0],
      [1, 1, 2, 1],
      [2, 0, 2, 5],
      [0, 3, 3, 1],
    ];
    const qr = pivotedQr(Float64Array.from(rows.flat()), rows.length, 4);
    assert.equal(qr.rank, 3);
    assert.deepEqual(Array.from(qr.pivot), [0, 1, 3, 2]);
  });

  it("a Wald test counts only the coefficients its covariance can separate", () => {
    // Two coefficients with identical estimates and perfectly correlated errors: one hypothesis.
    const design = buildDesign({ g: ["a", "b", "c"] }, { terms: ["g"] });
    const v = Float64Array.from([1, 0, 0, 0, 0.5, 0.5, 0, 0.5, 0.5]);
    const test = waldTest({ coefficients: Float64Array.from([0, 0.3, 0.3]), design }, ["g[T.b]", "g[T.c]"], v);
    assert.equal(test.df, 1);
    assert.deepEqual(test.redundant, ["g[T.c]"]);
    close(test.chi2, 0.3 ** 2 / 0.5, "chi2");
  });

  it("a singular Cholesky is a typed error, and only that one is treated as singular", () => {
    assert.throws(() => cholesky(Float64Array.from([1, 1, 1, 1]), 2), NotPositiveDefiniteError);
    assert.equal(
      unlessSingular(() => cholesky(Float64Array.from([1, 1, 1, 1]), 2)),
      undefined,
    );
    assert.throws(
      () =>
        unlessSingular(() => {
          throw new TypeError("a bug");
        }),
      TypeError,
    );
  });
});
