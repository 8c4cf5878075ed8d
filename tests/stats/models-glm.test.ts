import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  binomialRegression,
  coefficientTable,
  likelihoodRatioTest,
  SeparationError,
  seededRandom,
  termWaldTest,
} from "../../src/stats/models/index.js";
import { simulate } from "./models-simulate.js";

const Z995 = 2.5758293035489004;

const plan = {
  models: ["gpt", "llama", "qwen"],
  configs: ["direct", "map_reduce", "react"],
  benchmarks: ["bbq", "xstest"],
  casesPerBenchmark: 400,
  intercept: 0.8,
  model: { llama: -0.6, qwen: 0.4 },
  config: { map_reduce: -0.9, react: -0.25 },
  benchmark: { xstest: 0.5 },
};

const options = { factors: { config: { reference: "direct" } }, cluster: "case_id" };

describe("binomial GLM on simulated data", () => {
  it("recovers planted log-odds ratios inside their 99% cluster-robust intervals", () => {
    const data = simulate(plan, 1);
    const fit = binomialRegression(data, "outcome ~ config + model + benchmark", options);
    const planted: Record<string, number> = {
      Intercept: 0.8,
      "config[T.map_reduce]": -0.9,
      "config[T.react]": -0.25,
      "model[T.llama]": -0.6,
      "model[T.qwen]": 0.4,
      "benchmark[T.xstest]": 0.5,
    };
    for (const row of coefficientTable(fit, "cluster")) {
      const truth = planted[row.name];
      assert.ok(
        Math.abs(row.estimate - truth) < Z995 * row.se,
        `${row.name}: ${row.estimate} vs ${truth} (se ${row.se})`,
      );
      assert.ok(
        Math.abs(row.oddsRatio! - Math.exp(row.estimate)) < 1e-12,
        "expected Math.abs(row.oddsRatio! - Math.exp(row.estimate)) < 1e-12",
      );
    }
    assert.ok(termWaldTest(fit, "config").p < 1e-10, "the planted config effect is detected");
  });

  it("detects a planted interaction with the joint Wald test and the LR test", () => {
    const data = simulate({ ...plan, configByModel: { "react|llama": 0.8, "map_reduce|qwen": -0.7 } }, 2);
    const main = binomialRegression(data, "outcome ~ config + model + benchmark", options);
    const full = binomialRegression(data, "outcome ~ config + model + benchmark + config:model", options);
    const wald = termWaldTest(full, "config:model");
    assert.equal(wald.df, 4);
    assert.ok(wald.p < 1e-4, `interaction p = ${wald.p}`);
    const lr = likelihoodRatioTest(main, full);
    assert.equal(lr.df, 4);
    assert.ok(lr.p < 1e-4, "expected lr.p < 1e-4");
  });

  it("gives the joint Wald p as the chi-square tail with df = the number of coefficients", () => {
    // For even df the chi-square upper tail has a closed form: e^(-x/2) sum_{j < df/2} (x/2)^j / j!.
    const data = simulate({ ...plan, configByModel: { "react|llama": 0.3 } }, 4);
    const full = binomialRegression(data, "outcome ~ config + model + benchmark + config:model", options);
    for (const term of ["config", "config:model"]) {
      const wald = termWaldTest(full, term);
      assert.equal(wald.df % 2, 0, `${term}: an even df in this design`);
      let sum = 0;
      let power = 1;
      for (let j = 0; j < wald.df / 2; j++) {
        if (j > 0) power *= wald.chi2 / 2 / j;
        sum += power;
      }
      const p = Math.exp(-wald.chi2 / 2) * sum;
      assert.ok(Math.abs(wald.p - p) <= 1e-9 * p, `${term}: p ${wald.p} vs chi-square(${wald.df}) tail ${p}`);
    }
  });

  it("does not reject a null factor", () => {
    const data = simulate(plan, 3);
    const random = seededRandom(33);
    const shard = data.outcome.length ? Array.from(data.outcome, () => ["s1", "s2", "s3", "s4"][random.int(4)]) : [];
    const fit = binomialRegression({ ...data, shard }, "outcome ~ config + model + benchmark + shard", options);
    const test = termWaldTest(fit, "shard");
    assert.equal(test.df, 3);
    assert.ok(test.p > 0.01, `null factor p = ${test.p}`);
  });

  it("relates HC1 to HC0 and applies the cluster correction G/(G-1)(N-1)/(N-K)", () => {
    const data = simulate({ ...plan, casesPerBenchmark: 50 }, 4);
    const fit = binomialRegression(data, "outcome ~ config + model", options);
    const n = fit.nObs;
    const k = fit.nParameters;
    assert.equal(fit.nClusters, 100);
    assert.ok(
      Math.abs(fit.clusterCorrection! - ((100 / 99) * (n - 1)) / (n - k)) < 1e-15,
      "expected Math.abs(fit.clusterCorrection! - ((100 / 99) * (n - 1)) / (n - k)) < 1e-15",
    );
    fit.covariance.hc0.forEach((v, i) => {
      assert.ok(
        Math.abs(fit.covariance.hc1[i] - (v * n) / (n - k)) <= 1e-15 * Math.abs(v),
        "expected Math.abs(fit.covariance.hc1[i] - (v * n) / (n - k)) <= 1e-15 * Math.abs(v)",
      );
    });
  });

  it("recovers probit coefficients", () => {
    const random = seededRandom(5);
    const n = 6000;
    const x = Float64Array.from({ length: n }, () => random.normal());
    const g = Array.from({ length: n }, () => (random.uniform() < 0.5 ? "a" : "b"));
    const outcome = new Float64Array(n);
    for (let i = 0; i < n; i++)
      outcome[i] = 0.3 + 0.7 * x[i] - 0.5 * (g[i] === "b" ? 1 : 0) + random.normal() > 0 ? 1 : 0;
    const fit = binomialRegression({ x, g, outcome }, "outcome ~ x + g", { link: "probit" });
    const truth = [0.3, 0.7, -0.5];
    coefficientTable(fit, "model").forEach((row, j) => {
      assert.ok(Math.abs(row.estimate - truth[j]) < Z995 * row.se, `${row.name}`);
      assert.equal(row.oddsRatio, undefined);
    });
  });
});

describe("separation", () => {
  it("names the level whose rows all share one outcome (quasi-complete separation)", () => {
    const data = simulate({ ...plan, casesPerBenchmark: 30 }, 6);
    data.config.forEach((c, i) => {
      if (c === "react") data.outcome[i] = 1;
    });
    assert.throws(
      () => binomialRegression(data, "outcome ~ config + model", options),
      (e: unknown) =>
        e instanceof SeparationError &&
        e.coefficients.includes("config[T.react]") &&
        /quasi-complete separation.*config\[T\.react\].*outcome 1/.test(e.message),
    );
  });

  it("reports complete separation on a numeric predictor instead of returning huge estimates", () => {
    const x = Float64Array.from({ length: 40 }, (_, i) => i - 19.5);
    const outcome = x.map((v) => (v > 0 ? 1 : 0));
    assert.throws(
      () => binomialRegression({ x, outcome }, "outcome ~ x"),
      (e: unknown) => e instanceof SeparationError && /separation/.test(e.message) && e.coefficients.includes("x"),
    );
  });

  it("rejects outcomes that are not 0/1", () => {
    assert.throws(
      () => binomialRegression({ g: ["a", "b", "a", "b"], outcome: Float64Array.from([0, 1, 0.5, 1]) }, "outcome ~ g"),
      /0\/1 outcomes/,
    );
  });
});

describe("calibration under case-level correlation", () => {
  it("cluster-robust 95% Wald intervals cover the true coefficients; model-based ones do not for case-level effects", () => {
    // Outcomes share a per-case uniform with probability rho, so each row is still exactly
    // Bernoulli(logistic(eta)) (the marginal model holds, so its coefficients are the truth),
    // while rows of one case are positively correlated.
    const random = seededRandom(2024);
    const studies = 300;
    const cases = 100;
    const rho = 0.5;
    const truth = { config: -0.6, benchmark: 0.7 };
    const covered = { clusterConfig: 0, clusterBenchmark: 0, modelBenchmark: 0 };
    for (let s = 0; s < studies; s++) {
      const config: string[] = [];
      const benchmark: string[] = [];
      const model: string[] = [];
      const caseId: number[] = [];
      const outcome: number[] = [];
      for (let c = 0; c < cases; c++) {
        const shared = random.uniform();
        const bench = c % 2 === 0 ? "a" : "b";
        for (const cfg of ["direct", "react"]) {
          for (const m of ["m1", "m2"]) {
            const eta =
              -0.2 +
              (cfg === "react" ? truth.config : 0) +
              (bench === "b" ? truth.benchmark : 0) +
              (m === "m2" ? 0.3 : 0);
            const u = random.uniform() < rho ? shared : random.uniform();
            config.push(cfg);
            benchmark.push(bench);
            model.push(m);
            caseId.push(c);
            outcome.push(u < 1 / (1 + Math.exp(-eta)) ? 1 : 0);
          }
        }
      }
      const fit = binomialRegression(
        { config, benchmark, model, case_id: caseId, outcome: Float64Array.from(outcome) },
        "outcome ~ config + benchmark + model",
        options,
      );
      const cluster = coefficientTable(fit, "cluster");
      const naive = coefficientTable(fit, "model");
      const inside = (row: { ciLower: number; ciUpper: number }, t: number) =>
        row.ciLower <= t && t <= row.ciUpper ? 1 : 0;
      covered.clusterConfig += inside(cluster[1], truth.config);
      covered.clusterBenchmark += inside(cluster[2], truth.benchmark);
      covered.modelBenchmark += inside(naive[2], truth.benchmark);
    }
    const rate = (k: number) => k / studies;
    // Binomial SD of a coverage estimate from 300 studies is ~0.013; the band is about +/- 2.5 SD.
    assert.ok(
      rate(covered.clusterConfig) > 0.915 && rate(covered.clusterConfig) < 0.985,
      `config ${rate(covered.clusterConfig)}`,
    );
    assert.ok(
      rate(covered.clusterBenchmark) > 0.915 && rate(covered.clusterBenchmark) < 0.985,
      `benchmark ${rate(covered.clusterBenchmark)}`,
    );
    assert.ok(rate(covered.modelBenchmark) < 0.9, `model-based benchmark coverage ${rate(covered.modelBenchmark)}`);
  });
});
