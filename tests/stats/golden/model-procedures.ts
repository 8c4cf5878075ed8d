// Golden adapters for the regression-type fixtures (GLM, GLMM, ANOVA). Each adapter reads the
// CSV named in fixture.input, computes with src/stats/models from the input only, and returns
// an object shaped like the fixture's `expected`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AnovaRow,
  anova,
  binomialRegression,
  coefficientTable,
  type CovarianceType,
  type FactorOptions,
  type GlmFit,
  type GlmmFit,
  glmmCoefficientTable,
  glmmRegression,
  glmWaldTest,
  likelihoodRatioTest,
  type Table,
  termColumnNames,
} from "../../../src/stats/models/index.js";
import type { GoldenAdapter, GoldenFixture } from "./types.js";

/** Reads a simple CSV (no quoted fields) into columns of strings. */
export function readCsvColumns(path: string): Record<string, string[]> {
  const lines = readFileSync(path, "utf8")
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
  const header = lines[0].split(",");
  const columns: Record<string, string[]> = Object.fromEntries(header.map((h) => [h, []]));
  for (let r = 1; r < lines.length; r++) {
    const cells = lines[r].split(",");
    if (cells.length !== header.length) throw new Error(`${path}:${r + 1}: expected ${header.length} fields`);
    header.forEach((h, c) => {
      columns[h].push(cells[c]);
    });
  }
  return columns;
}

/** Keeps the rows whose columns equal every value of `filter` (null = all rows). */
function filterRows(
  columns: Record<string, string[]>,
  filter: Record<string, string> | null,
): Record<string, string[]> {
  if (!filter) return columns;
  const names = Object.keys(columns);
  const n = columns[names[0]].length;
  const keep: number[] = [];
  for (let i = 0; i < n; i++) if (Object.entries(filter).every(([c, v]) => columns[c][i] === String(v))) keep.push(i);
  return Object.fromEntries(names.map((c) => [c, keep.map((i) => columns[c][i])]));
}

function loadTable(fixture: GoldenFixture): Record<string, string[]> {
  return filterRows(readCsvColumns(join(fixture.dir, fixture.input.csv)), fixture.input.row_filter ?? null);
}

function factorOptions(input: {
  factor_levels?: Record<string, string[]>;
  reference_levels?: Record<string, string>;
}): Record<string, FactorOptions> {
  const out: Record<string, FactorOptions> = {};
  for (const [name, levels] of Object.entries(input.factor_levels ?? {})) {
    out[name] = { levels, reference: input.reference_levels?.[name] };
  }
  return out;
}

function withNumericOutcome(columns: Record<string, string[]>, response: string): Table {
  return { ...columns, [response]: Float64Array.from(columns[response], Number) };
}

// ------------------------------------------------------------------ GLM

function fitGlm(fixture: GoldenFixture, formula: string): GlmFit {
  const { input } = fixture;
  return binomialRegression(withNumericOutcome(loadTable(fixture), input.response), formula, {
    factors: factorOptions(input),
    cluster: input.cluster,
    link: input.link,
  });
}

const pair = (a: number, b: number) => [a, b];

function glmCoefficients(fit: GlmFit) {
  const tables = {
    model: coefficientTable(fit, "model"),
    hc0: coefficientTable(fit, "hc0"),
    hc1: coefficientTable(fit, "hc1"),
    cluster: coefficientTable(fit, "cluster"),
  };
  const raw = Math.sqrt(1 / fit.clusterCorrection!);
  return tables.model.map((m, j) => {
    const [h0, h1, cl] = [tables.hc0[j], tables.hc1[j], tables.cluster[j]];
    return {
      name: m.name,
      estimate: m.estimate,
      se_model: m.se,
      z_model: m.z,
      p_model: m.p,
      se_hc0: h0.se,
      z_hc0: h0.z,
      p_hc0: h0.p,
      se_hc1: h1.se,
      z_hc1: h1.z,
      p_hc1: h1.p,
      se_cluster: cl.se,
      z_cluster: cl.z,
      p_cluster: cl.p,
      se_cluster_without_small_sample_factor: cl.se * raw,
      ci95_cluster: pair(cl.ciLower, cl.ciUpper),
      odds_ratio: m.oddsRatio,
      or_ci95_model: pair(m.oddsRatioCiLower!, m.oddsRatioCiUpper!),
      or_ci95_cluster: pair(cl.oddsRatioCiLower!, cl.oddsRatioCiUpper!),
    };
  });
}

function jointTests(fit: GlmFit, names: string[]) {
  const test = (type: CovarianceType) => {
    const t = glmWaldTest(fit, names, type);
    return { chi2: t.chi2, df: t.df, p: t.p };
  };
  return { terms: names, cluster: test("cluster"), model_based: test("model"), hc0: test("hc0") };
}

function fitSummary(fit: GlmFit) {
  return {
    n_obs: fit.nObs,
    k_params: fit.nParameters,
    n_clusters: fit.nClusters,
    loglik: fit.logLik,
    deviance: fit.deviance,
    null_deviance: fit.nullDeviance,
    aic: fit.aic,
    df_resid: fit.dfResidual,
    pearson_chi2: fit.pearsonChi2,
  };
}

function matrixRows(v: Float64Array, k: number): number[][] {
  return Array.from({ length: k }, (_, i) => Array.from(v.subarray(i * k, (i + 1) * k)));
}

function clusterCorrection(fit: GlmFit) {
  return {
    formula: "G/(G-1)*(N-1)/(N-K)",
    N: fit.nObs,
    K: fit.nParameters,
    G: fit.nClusters,
    factor: fit.clusterCorrection,
    applied: true,
  };
}

/** Formula of the main-effects part: every term without ':'. */
function mainEffectsFormula(formula: string): string {
  const [lhs, rhs] = formula.split("~");
  const kept = rhs
    .split("+")
    .map((t) => t.trim())
    .filter((t) => !t.includes(":"));
  return `${lhs.trim()} ~ ${kept.join(" + ")}`;
}

const glmBinomialLogit: GoldenAdapter = (fixture) => {
  const fit = fitGlm(fixture, fixture.input.formula);
  const k = fit.nParameters;
  return {
    param_names: fit.coefficientNames,
    coefficients: glmCoefficients(fit),
    // H1 of the primary analysis: the omnibus test of the configuration factor.
    tests: { config_all_zero: jointTests(fit, termColumnNames(fit.design, "config")) },
    fit: fitSummary(fit),
    cluster_correction: clusterCorrection(fit),
    hc1_factor: { formula: "N/(N-K)", factor: fit.hc1Factor },
    cov_cluster: matrixRows(fit.covariance.cluster!, k),
    cov_model: matrixRows(fit.covariance.model, k),
  };
};

const glmBinomialLogitInteraction: GoldenAdapter = (fixture) => {
  const fit = fitGlm(fixture, fixture.input.formula);
  const main = fitGlm(fixture, mainEffectsFormula(fixture.input.formula));
  const lr = likelihoodRatioTest(main, fit);
  return {
    param_names: fit.coefficientNames,
    coefficients: glmCoefficients(fit),
    // H2: the configuration x model interaction block; and the config main-effect block of this model.
    tests: {
      config_x_model_all_zero: jointTests(fit, termColumnNames(fit.design, "config:model")),
      config_main_all_zero: jointTests(fit, termColumnNames(fit.design, "config")),
    },
    fit: fitSummary(fit),
    cluster_correction: clusterCorrection(fit),
    lr_test_vs_main_effects: { lr: lr.chi2, df: lr.df, p: lr.p },
    cov_cluster: matrixRows(fit.covariance.cluster!, fit.nParameters),
  };
};

const glmBinomialProbit: GoldenAdapter = (fixture) => {
  const fit = fitGlm(fixture, fixture.input.formula);
  const table = coefficientTable(fit, "model");
  return {
    param_names: fit.coefficientNames,
    coefficients: Object.fromEntries(table.map((r) => [r.name, r.estimate])),
    se_model_expected_info: Object.fromEntries(table.map((r) => [r.name, r.se])),
    fit: { loglik: fit.logLik, deviance: fit.deviance, aic: fit.aic, n_obs: fit.nObs },
  };
};

// ------------------------------------------------------------------ GLMM

function glmmSummary(fit: GlmmFit) {
  const hessian = glmmCoefficientTable(fit, "hessian");
  const conditional = glmmCoefficientTable(fit, "conditional");
  return {
    param_names: fit.coefficientNames,
    fixed_effects: hessian.map((r, j) => ({
      name: r.name,
      estimate: r.estimate,
      se: r.se,
      z: r.z,
      p: r.p,
      se_rx_conditional: conditional[j].se,
    })),
    random_intercept_variance: fit.randomInterceptVariance,
    random_intercept_sd: fit.theta,
    theta: fit.theta,
    loglik: fit.logLik,
    df: fit.nParameters,
    aic: fit.aic,
    bic: fit.bic,
    minus2loglik: -2 * fit.logLik,
    n_obs: fit.nObs,
    n_groups: fit.nGroups,
  };
}

const glmmLogitRandomIntercept: GoldenAdapter = (fixture) => {
  const { input } = fixture;
  const table = withNumericOutcome(loadTable(fixture), input.response);
  const options = { factors: factorOptions(input) };
  const m0 = glmmRegression(table, input.formula_m0, options);
  const m1 = glmmRegression(table, input.formula_m1, options);
  const lrt = likelihoodRatioTest(m0, m1);
  return { m0: glmmSummary(m0), m1: glmmSummary(m1), lrt_m0_vs_m1: { chi2: lrt.chi2, df: lrt.df, p: lrt.p } };
};

// ------------------------------------------------------------------ ANOVA

function anovaRows(rows: AnovaRow[], rss: number, dfResidual: number) {
  const mapped = rows.map((r) =>
    r.etaSq === undefined
      ? { term: r.term, ss: r.ss, df: r.df, F: r.F, p: r.p }
      : {
          term: r.term,
          ss: r.ss,
          df: r.df,
          F: r.F,
          p: r.p,
          eta_sq: r.etaSq,
          omega_sq: r.omegaSq,
          omega_sq_unclipped: r.omegaSqUnclipped,
          partial_eta_sq: r.partialEtaSq,
        },
  );
  return [...mapped, { term: "Residual", ss: rss, df: dfResidual }];
}

const anovaType2Type3: GoldenAdapter = (fixture) => {
  const { input } = fixture;
  const table = loadTable(fixture);
  const result = anova(
    { ...table, [input.response]: Float64Array.from(table[input.response], Number) },
    {
      response: input.response,
      terms: input.terms,
    },
  );
  return {
    n_obs: result.nObs,
    ss_total: result.ssTotal,
    ms_residual: result.msResidual,
    df_residual: result.dfResidual,
    rss: result.rss,
    n_cells_observed_of_full_factorial: observedCells(table, input.categorical),
    type2: anovaRows(result.type2, result.rss, result.dfResidual),
    type3: anovaRows(result.type3, result.rss, result.dfResidual),
    type1_extra: anovaRows(result.type1, result.rss, result.dfResidual),
  };
};

/** Distinct combinations of the categorical variables among the analysed rows. */
function observedCells(table: Record<string, string[]>, variables: string[]): number {
  const n = table[variables[0]].length;
  const cells = new Set<string>();
  for (let i = 0; i < n; i++) cells.add(variables.map((v) => table[v][i]).join("\u0000"));
  return cells.size;
}

export const modelProcedures: Record<string, GoldenAdapter> = {
  glm_binomial_logit: glmBinomialLogit,
  glm_binomial_logit_interaction: glmBinomialLogitInteraction,
  glm_binomial_probit: glmBinomialProbit,
  glmm_logit_random_intercept: glmmLogitRandomIntercept,
  anova_type2_type3: anovaType2Type3,
};
