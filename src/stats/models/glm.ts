// Binomial GLM (logit or probit link) by IRLS / Fisher scoring on a sparse design, with
// model-based, HC0, HC1 and cluster-robust covariances (definitions: golden/README.md).
// Every iteration is one pass over the rows accumulating X'WX and the score X'u.
import {
  type AliasedColumn,
  addOuter,
  buildDesign,
  type Column,
  columnValues,
  firstSeenOrder,
  isFactorColumn,
  type Coding,
  columnIndices,
  type DesignMatrix,
  type FactorOptions,
  describeAliased,
  EstimabilityError,
  estimableDesign,
  mirrorUpper,
  RankDeficiencyError,
  type RowPatterns,
  rowPatterns,
  spreadFit,
  type Table,
  termColumnNames,
} from "./design.js";
import { parseFormula } from "./formula.js";
import {
  choleskySolve,
  cholesky,
  independentColumns,
  invertSpd,
  inverseQuadraticForm,
  sandwich,
  subMatrix,
  unlessSingular,
} from "./linalg.js";
import { chiSquareSf, normalCdf, normalPdf, normalQuantile, twoSidedNormalP } from "./tails.js";

export type Link = "logit" | "probit";
export type CovarianceType = "model" | "hc0" | "hc1" | "cluster";

export interface GlmOptions {
  link?: Link;
  /** Cluster ids (one per row) for the cluster-robust covariance. */
  clusters?: Column;
  maxIterations?: number;
  /** Convergence when every |step_k| <= tolerance * (1 + |b_k|). */
  tolerance?: number;
  /**
   * Aliased design columns (linear combinations of earlier ones): "drop" (default, as R's glm)
   * fits without them, reports their coefficients NaN (R's NA) and names them in `aliased`;
   * "error" throws a RankDeficiencyError naming them.
   */
  aliased?: "drop" | "error";
  /**
   * "shared" (default): rows with the same design row share their link terms, computed once per
   * pattern (the sums stay in row order, so the fit is the same to the last bit); "each": every
   * row's terms computed on its own, the reference the shared passes are checked against.
   */
  rowPasses?: "shared" | "each";
}

export interface GlmFit {
  link: Link;
  /** The full design, aliased columns included. */
  design: DesignMatrix;
  coefficientNames: string[];
  /** One per design column; NaN for an aliased column (R's NA). */
  coefficients: Float64Array;
  /** Columns left out of the fit as linear combinations of earlier ones (empty at full rank). */
  aliased: AliasedColumn[];
  /**
   * k x k row-major covariance matrices over every design column (NaN rows and columns for the
   * aliased ones); `cluster` only when clusters were given.
   */
  covariance: { model: Float64Array; hc0: Float64Array; hc1: Float64Array; cluster?: Float64Array };
  fitted: Float64Array;
  nObs: number;
  /** Number of estimated parameters: the rank of the design (k less the aliased columns). */
  nParameters: number;
  nClusters?: number;
  /** G/(G-1) * (N-1)/(N-K), applied to the cluster-robust covariance. */
  clusterCorrection?: number;
  /** N/(N-K), the HC1 factor. */
  hc1Factor: number;
  logLik: number;
  deviance: number;
  nullDeviance: number;
  aic: number;
  bic: number;
  pearsonChi2: number;
  dfResidual: number;
  iterations: number;
}

export class SeparationError extends Error {
  constructor(
    message: string,
    readonly coefficients: string[],
  ) {
    super(message);
    this.name = "SeparationError";
  }
}

export class ConvergenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConvergenceError";
  }
}

/** Inputs of the formula interface shared by the regression fitters. */
export interface FormulaOptions {
  factors?: Readonly<Record<string, FactorOptions>>;
  coding?: Coding;
}

/** Logistic / probit regression from a formula such as 'outcome ~ config + model + config:model'. */
export function binomialRegression(
  table: Table,
  formula: string,
  options: FormulaOptions & Omit<GlmOptions, "clusters"> & { cluster?: string } = {},
): GlmFit {
  const parsed = parseFormula(formula);
  if (parsed.randomIntercept) throw new Error("use fitGlmmRandomIntercept for formulas with '(1 | g)'");
  const design = buildDesign(table, {
    terms: parsed.terms,
    intercept: parsed.intercept,
    factors: options.factors,
    coding: options.coding,
  });
  const y = responseColumn(table, parsed.response);
  const clusters = options.cluster === undefined ? undefined : table[options.cluster];
  if (options.cluster !== undefined && !clusters) throw new Error(`unknown cluster column '${options.cluster}'`);
  return fitBinomialGlm(design, y, { ...options, clusters });
}

/** The response as 0/1 doubles (booleans and '0'/'1' strings accepted). */
export function responseColumn(table: Table, name: string): Float64Array {
  const column = table[name];
  if (!column) throw new Error(`unknown response column '${name}'`);
  const values = columnValues(column);
  const y = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) y[i] = Number(values[i]);
  return y;
}

interface Pass {
  logLik: number;
  info: Float64Array;
  score: Float64Array;
}

/** Per-row link quantities: mean, Fisher weight, score multiplier and log-likelihood. */
interface RowTerms {
  mu: number;
  weight: number;
  scoreFactor: number;
  logLik: number;
}

function logitRow(eta: number, y: number, out: RowTerms): void {
  // Stable forms: log(mu) = -softplus(-eta), log(1 - mu) = -softplus(eta).
  const e = Math.exp(-Math.abs(eta));
  const mu = eta >= 0 ? 1 / (1 + e) : e / (1 + e);
  const softplus = Math.max(eta, 0) + Math.log1p(e);
  out.mu = mu;
  out.weight = mu * (1 - mu);
  out.scoreFactor = y - mu;
  out.logLik = y * eta - softplus;
}

function probitRow(eta: number, y: number, out: RowTerms): void {
  const mu = normalCdf(eta);
  const oneMinusMu = normalCdf(-eta);
  const phi = normalPdf(eta);
  const variance = mu * oneMinusMu;
  out.mu = mu;
  // Fisher scoring (expected information) weights, as statsmodels' IRLS and R's glm report.
  out.weight = variance > 0 ? (phi * phi) / variance : 0;
  out.scoreFactor = variance > 0 ? ((y - mu) * phi) / variance : 0;
  out.logLik = y === 1 ? Math.log(mu) : Math.log(oneMinusMu);
}

function rowFunction(link: Link) {
  return link === "logit" ? logitRow : probitRow;
}

function pass(design: DesignMatrix, y: Float64Array, b: Float64Array, link: Link, shared: SharedRows | null): Pass {
  if (shared) return patternPass(design, shared, y, b, link);
  const k = design.nCols;
  const info = new Float64Array(k * k);
  const score = new Float64Array(k);
  const { rowPtr, colIdx, values } = design;
  const row = rowFunction(link);
  const t: RowTerms = { mu: 0, weight: 0, scoreFactor: 0, logLik: 0 };
  let logLik = 0;
  for (let i = 0; i < design.nRows; i++) {
    const start = rowPtr[i];
    const end = rowPtr[i + 1];
    let eta = 0;
    for (let a = start; a < end; a++) eta += values[a] * b[colIdx[a]];
    row(eta, y[i], t);
    logLik += t.logLik;
    for (let a = start; a < end; a++) score[colIdx[a]] += t.scoreFactor * values[a];
    addOuter(info, k, colIdx, values, start, end, t.weight);
  }
  mirrorUpper(info, k);
  return { logLik, info, score };
}

/**
 * A design whose rows repeat (factor designs: a few hundred distinct rows for any number of
 * rows): its row patterns and, per pattern, the upper-triangle targets of x x' in `addOuter`'s
 * order. Null when most rows are distinct (nothing to share).
 */
interface SharedRows {
  patterns: RowPatterns;
  /** Pattern p's targets (ca * k + cb): outerStart[p] .. outerStart[p + 1] - 1. */
  outerStart: Int32Array;
  outerAt: Int32Array;
  /** The two design entries (a, c) of each target: x_a x_b is values[a] * values[c]. */
  outerEntries: Int32Array;
}

const sharedOf = new WeakMap<DesignMatrix, SharedRows | null>();

function sharedRows(design: DesignMatrix): SharedRows | null {
  const known = sharedOf.get(design);
  if (known !== undefined) return known;
  const patterns = rowPatterns(design);
  let shared: SharedRows | null = null;
  if (patterns.count * 4 <= design.nRows) {
    const { rowPtr, colIdx } = design;
    const k = design.nCols;
    const outerStart = new Int32Array(patterns.count + 1);
    const at: number[] = [];
    const entries: number[] = [];
    for (let p = 0; p < patterns.count; p++) {
      const i = patterns.first[p];
      for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) {
        for (let c = rowPtr[i]; c < rowPtr[i + 1]; c++) {
          if (colIdx[c] < colIdx[a]) continue;
          at.push(colIdx[a] * k + colIdx[c]);
          entries.push(a, c);
        }
      }
      outerStart[p + 1] = at.length;
    }
    shared = {
      patterns,
      outerStart,
      outerAt: Int32Array.from(at),
      outerEntries: Int32Array.from(entries),
    };
  }
  sharedOf.set(design, shared);
  return shared;
}

/**
 * Each pattern's link terms for y = 0 and y = 1, from the pattern's first row (the linear
 * predictor summed in the row's entry order, as every row of the pattern would sum it).
 */
function patternTerms(design: DesignMatrix, shared: SharedRows, b: Float64Array, link: Link) {
  const { rowPtr, colIdx, values } = design;
  const { count, first } = shared.patterns;
  const row = rowFunction(link);
  const t: RowTerms = { mu: 0, weight: 0, scoreFactor: 0, logLik: 0 };
  const mu = new Float64Array(2 * count);
  const weight = new Float64Array(2 * count);
  const scoreFactor = new Float64Array(2 * count);
  const logLik = new Float64Array(2 * count);
  for (let p = 0; p < count; p++) {
    const i = first[p];
    let eta = 0;
    for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) eta += values[a] * b[colIdx[a]];
    for (let outcome = 0; outcome < 2; outcome++) {
      row(eta, outcome, t);
      const at = 2 * p + outcome;
      mu[at] = t.mu;
      weight[at] = t.weight;
      scoreFactor[at] = t.scoreFactor;
      logLik[at] = t.logLik;
    }
  }
  return { mu, weight, scoreFactor, logLik };
}

/**
 * The pass's increments per pattern and outcome: w * x_a * x_b for X'WX (formed as addOuter forms
 * them) and u * x_a for the score. Every row adds its pattern's increments in its own order, so
 * the sums are the per-row pass's to the last bit.
 */
function outerIncrements(
  design: DesignMatrix,
  shared: SharedRows,
  factor: Float64Array,
): { outer: Float64Array; outerBase: Int32Array } {
  const { values } = design;
  const { count } = shared.patterns;
  const { outerStart, outerEntries } = shared;
  const pairs = outerStart[count];
  const outer = new Float64Array(2 * pairs);
  const outerBase = new Int32Array(2 * count);
  let at = 0;
  for (let p = 0; p < count; p++) {
    for (let outcome = 0; outcome < 2; outcome++) {
      const w = factor[2 * p + outcome];
      outerBase[2 * p + outcome] = at - outerStart[p];
      for (let s = outerStart[p]; s < outerStart[p + 1]; s++) {
        outer[at++] = w * values[outerEntries[2 * s]] * values[outerEntries[2 * s + 1]];
      }
    }
  }
  return { outer, outerBase };
}

function patternPass(design: DesignMatrix, shared: SharedRows, y: Float64Array, b: Float64Array, link: Link): Pass {
  const k = design.nCols;
  const info = new Float64Array(k * k);
  const score = new Float64Array(k);
  const { rowPtr, colIdx, values } = design;
  const { of } = shared.patterns;
  const { outerStart, outerAt } = shared;
  const terms = patternTerms(design, shared, b, link);
  const { outer, outerBase } = outerIncrements(design, shared, terms.weight);
  let logLik = 0;
  for (let i = 0; i < design.nRows; i++) {
    const p = of[i];
    const at = 2 * p + y[i];
    logLik += terms.logLik[at];
    const u = terms.scoreFactor[at];
    for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) score[colIdx[a]] += u * values[a];
    const base = outerBase[at];
    for (let s = outerStart[p]; s < outerStart[p + 1]; s++) info[outerAt[s]] += outer[base + s];
  }
  mirrorUpper(info, k);
  return { logLik, info, score };
}

/** Fits a binomial GLM to 0/1 outcomes y on a prepared design. */
export function fitBinomialGlm(design: DesignMatrix, y: Float64Array, options: GlmOptions = {}): GlmFit {
  const link = options.link ?? "logit";
  validateOutcome(y, design.nRows);
  const estimable = estimableDesign(design);
  if (estimable.aliased.length && options.aliased === "error") {
    throw new RankDeficiencyError(
      `design matrix is rank deficient: ${describeAliased(estimable.aliased)}`,
      estimable.aliased,
    );
  }
  checkIndicatorSeparation(estimable.design, y);
  const { b, last, iterations } = iterate(estimable.design, y, link, options);
  const fit = summarize(estimable.design, y, {
    b,
    link,
    iterations,
    last,
    clusters: options.clusters,
    shared: options.rowPasses === "each" ? null : sharedRows(estimable.design),
  });
  return estimable.aliased.length ? { ...fit, ...spreadFit(fit, design, estimable) } : fit;
}

function validateOutcome(y: Float64Array, n: number): void {
  if (y.length !== n) throw new Error(`outcome has ${y.length} rows, design has ${n}`);
  for (let i = 0; i < n; i++) {
    if (y[i] !== 0 && y[i] !== 1) throw new Error(`outcome row ${i} is ${y[i]}; a binomial GLM needs 0/1 outcomes`);
  }
}

function iterate(design: DesignMatrix, y: Float64Array, link: Link, options: GlmOptions) {
  const k = design.nCols;
  const maxIterations = options.maxIterations ?? 100;
  const tolerance = options.tolerance ?? 1e-10;
  let b = new Float64Array(k);
  const shared = options.rowPasses === "each" ? null : sharedRows(design);
  let last = pass(design, y, b, link, shared);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    const delta = newtonStep(last, k);
    // A singular information matrix mid-fit means weights underflowed: fitted probabilities hit 0 or 1.
    if (!delta) throw nonConvergence(design, y, { b, link, iterations: iteration });
    // Step halving guards against an overshooting first step; a full step is taken near the optimum.
    let step = 1;
    let candidate = b;
    let next = last;
    for (let halvings = 0; halvings < 40; halvings++) {
      candidate = b.map((v, j) => v + step * delta[j]);
      next = pass(design, y, candidate, link, shared);
      if (next.logLik >= last.logLik - 1e-12 * Math.abs(last.logLik)) break;
      step /= 2;
    }
    const converged = candidate.every((v, j) => Math.abs(v - b[j]) <= tolerance * (1 + Math.abs(v)));
    b = candidate;
    last = next;
    if (converged) return { b, last, iterations: iteration };
  }
  throw nonConvergence(design, y, { b, link, iterations: maxIterations });
}

function newtonStep(last: Pass, k: number): Float64Array | undefined {
  return unlessSingular(() => choleskySolve(cholesky(last.info, k), k, last.score));
}

/** Where the iterations stopped: the coefficients, the link, and how many iterations were run. */
interface FitState {
  b: Float64Array;
  link: Link;
  iterations: number;
}

function nonConvergence(design: DesignMatrix, y: Float64Array, state: FitState) {
  const { b, link, iterations } = state;
  const row = rowFunction(link);
  const t: RowTerms = { mu: 0, weight: 0, scoreFactor: 0, logLik: 0 };
  let extreme = 0;
  const eta = new Float64Array(design.nRows);
  for (let i = 0; i < design.nRows; i++) {
    for (let a = design.rowPtr[i]; a < design.rowPtr[i + 1]; a++) eta[i] += design.values[a] * b[design.colIdx[a]];
    row(eta[i], y[i], t);
    if (t.mu < 1e-10 || t.mu > 1 - 1e-10) extreme++;
  }
  if (extreme > 0) {
    const large = [...b]
      .map((v, j) => ({ name: design.columnNames[j], v }))
      .filter((c) => Math.abs(c.v) > 5)
      .sort((p, q) => Math.abs(q.v) - Math.abs(p.v))
      .map((c) => c.name);
    return new SeparationError(
      `no finite maximum-likelihood estimate: (quasi-)complete separation (${extreme} rows fitted at probability 0 or 1 ` +
        `after ${iterations} iterations; diverging coefficients: ${large.join(", ") || "?"}). ` +
        "Merge sparse levels, drop the perfectly predicted cells, or use a penalized (Firth) fit.",
      large,
    );
  }
  return new ConvergenceError(`IRLS did not converge in ${iterations} iterations`);
}

/**
 * Quasi-complete separation that is visible column by column: if every row where a
 * non-negative column is non-zero has the same outcome, raising that coefficient always
 * improves the likelihood, so the MLE is infinite. Caught before iterating, with its cause.
 */
function checkIndicatorSeparation(design: DesignMatrix, y: Float64Array): void {
  const k = design.nCols;
  const ones = new Float64Array(k);
  const total = new Float64Array(k);
  const negative = new Uint8Array(k);
  const { rowPtr, colIdx, values } = design;
  for (let i = 0; i < design.nRows; i++) {
    for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) {
      const c = colIdx[a];
      if (values[a] < 0) negative[c] = 1;
      total[c]++;
      ones[c] += y[i];
    }
  }
  const separated: string[] = [];
  const details: string[] = [];
  for (let c = 0; c < k; c++) {
    if (negative[c] || total[c] === 0) continue;
    if (ones[c] !== 0 && ones[c] !== total[c]) continue;
    const name = design.columnNames[c];
    const outcome = ones[c] === 0 ? 0 : 1;
    if (name === "Intercept")
      throw new SeparationError(`the outcome is ${outcome} on every row: nothing to model`, [name]);
    separated.push(name);
    details.push(`all ${total[c]} rows with ${name} != 0 have outcome ${outcome}`);
  }
  if (separated.length) {
    throw new SeparationError(
      `quasi-complete separation: ${details.join("; ")}, so ${separated.length === 1 ? "that coefficient diverges" : "those coefficients diverge"} ` +
        "(no finite maximum-likelihood estimate). Merge or drop the sparse levels, or use a penalized (Firth) fit.",
      separated,
    );
  }
}

function summarize(
  design: DesignMatrix,
  y: Float64Array,
  /** The converged state, its last pass, and the clusters of the sandwich's meat. */
  fit: FitState & { last: Pass; clusters: Column | undefined; shared: SharedRows | null },
): GlmFit {
  const { b, link, iterations, last, clusters } = fit;
  const k = design.nCols;
  const n = design.nRows;
  const bread = invertSpd(last.info, k);
  const meat = scoreMeats(design, y, { b, link, clusters, shared: fit.shared });
  const hc0 = sandwich(bread, meat.rows, k);
  const hc1Factor = n / (n - k);
  const covariance: GlmFit["covariance"] = { model: bread, hc0, hc1: hc0.map((v) => v * hc1Factor) };
  let clusterCorrection: number | undefined;
  if (meat.clusters) {
    const g = meat.nClusters;
    clusterCorrection = (g / (g - 1)) * ((n - 1) / (n - k));
    const factor = clusterCorrection;
    covariance.cluster = sandwich(bread, meat.clusters, k).map((v) => v * factor);
  }
  const deviance = -2 * last.logLik;
  return {
    link,
    design,
    coefficientNames: design.columnNames,
    coefficients: b,
    aliased: [],
    covariance,
    fitted: meat.fitted,
    nObs: n,
    nParameters: k,
    ...(meat.clusters ? { nClusters: meat.nClusters, clusterCorrection } : {}),
    hc1Factor,
    logLik: last.logLik,
    deviance,
    nullDeviance: nullDeviance(y, design),
    aic: deviance + 2 * k,
    bic: deviance + Math.log(n) * k,
    pearsonChi2: meat.pearson,
    dfResidual: n - k,
    iterations,
  };
}

/** Sum of s_i s_i' and (with clusters) sum_g S_g S_g', with s_i = u_i x_i the score contributions. */
function scoreMeats(
  design: DesignMatrix,
  y: Float64Array,
  at: { b: Float64Array; link: Link; clusters: Column | undefined; shared: SharedRows | null },
) {
  const { b, link, clusters, shared } = at;
  const k = design.nCols;
  const rows = new Float64Array(k * k);
  const fitted = new Float64Array(design.nRows);
  const clusterIds = clusters ? clusterCodes(clusters, design.nRows) : undefined;
  const nClusters = clusterIds?.count ?? 0;
  const sums = clusterIds ? new Float64Array(nClusters * k) : undefined;
  const { rowPtr, colIdx, values } = design;
  if (shared) {
    const pearson = patternMeats(design, shared, { y, b, link }, { rows, fitted, sums, clusterIds });
    mirrorUpper(rows, k);
    return { rows, clusters: sums ? outerSum(sums, nClusters, k) : undefined, nClusters, fitted, pearson };
  }
  const row = rowFunction(link);
  const t: RowTerms = { mu: 0, weight: 0, scoreFactor: 0, logLik: 0 };
  let pearson = 0;
  for (let i = 0; i < design.nRows; i++) {
    const start = rowPtr[i];
    const end = rowPtr[i + 1];
    let eta = 0;
    for (let a = start; a < end; a++) eta += values[a] * b[colIdx[a]];
    row(eta, y[i], t);
    fitted[i] = t.mu;
    pearson += (y[i] - t.mu) ** 2 / (t.mu * (1 - t.mu));
    addOuter(rows, k, colIdx, values, start, end, t.scoreFactor * t.scoreFactor);
    if (sums && clusterIds) {
      const base = clusterIds.codes[i] * k;
      for (let a = start; a < end; a++) sums[base + colIdx[a]] += t.scoreFactor * values[a];
    }
  }
  mirrorUpper(rows, k);
  return { rows, clusters: sums ? outerSum(sums, nClusters, k) : undefined, nClusters, fitted, pearson };
}

/** `scoreMeats`'s row loop over a design with repeated rows: each pattern's terms formed once. */
function patternMeats(
  design: DesignMatrix,
  shared: SharedRows,
  fit: { y: Float64Array; b: Float64Array; link: Link },
  out: {
    rows: Float64Array;
    fitted: Float64Array;
    sums: Float64Array | undefined;
    clusterIds: { codes: Int32Array } | undefined;
  },
): number {
  const { y } = fit;
  const { rows, fitted, sums, clusterIds } = out;
  const k = design.nCols;
  const { rowPtr, colIdx, values } = design;
  const { of, count } = shared.patterns;
  const { outerStart, outerAt } = shared;
  const terms = patternTerms(design, shared, fit.b, fit.link);
  const squared = new Float64Array(2 * count);
  const pearsonTerm = new Float64Array(2 * count);
  for (let at = 0; at < 2 * count; at++) {
    const mu = terms.mu[at];
    squared[at] = terms.scoreFactor[at] * terms.scoreFactor[at];
    pearsonTerm[at] = ((at % 2) - mu) ** 2 / (mu * (1 - mu));
  }
  const { outer, outerBase } = outerIncrements(design, shared, squared);
  let pearson = 0;
  for (let i = 0; i < design.nRows; i++) {
    const p = of[i];
    const at = 2 * p + y[i];
    fitted[i] = terms.mu[at];
    pearson += pearsonTerm[at];
    const base = outerBase[at];
    for (let s = outerStart[p]; s < outerStart[p + 1]; s++) rows[outerAt[s]] += outer[base + s];
    if (sums && clusterIds) {
      const u = terms.scoreFactor[at];
      const cluster = clusterIds.codes[i] * k;
      for (let a = rowPtr[i]; a < rowPtr[i + 1]; a++) sums[cluster + colIdx[a]] += u * values[a];
    }
  }
  return pearson;
}

/** sum_g S_g S_g' for cluster score sums stored g-major. */
function outerSum(sums: Float64Array, g: number, k: number): Float64Array {
  const out = new Float64Array(k * k);
  for (let c = 0; c < g; c++) {
    const base = c * k;
    for (let i = 0; i < k; i++) {
      const si = sums[base + i];
      if (si === 0) continue;
      for (let j = i; j < k; j++) out[i * k + j] += si * sums[base + j];
    }
  }
  mirrorUpper(out, k);
  return out;
}

/** Dense 0..G-1 codes for arbitrary cluster labels. */
export function clusterCodes(labels: Column, n: number): { codes: Int32Array; count: number } {
  if (labels.length !== n) throw new Error(`cluster column has ${labels.length} rows, expected ${n}`);
  // A factor column's values are distinct: numbered as rows first show them, as labels are below.
  if (isFactorColumn(labels)) {
    const { order, place } = firstSeenOrder(labels);
    return { codes: Int32Array.from(labels.codes, (v) => place[v]), count: order.length };
  }
  const index = new Map<string | number, number>();
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let c = index.get(labels[i]);
    if (c === undefined) {
      c = index.size;
      index.set(labels[i], c);
    }
    codes[i] = c;
  }
  return { codes, count: index.size };
}

/** Deviance of the intercept-only model (mu = mean outcome), or of mu = 1/2 without an intercept. */
function nullDeviance(y: Float64Array, design: DesignMatrix): number {
  let sum = 0;
  for (let i = 0; i < y.length; i++) sum += y[i];
  const hasIntercept = design.columnNames[0] === "Intercept";
  const p = hasIntercept ? sum / y.length : 0.5;
  const ones = sum;
  const zeros = y.length - sum;
  return -2 * ((ones > 0 ? ones * Math.log(p) : 0) + (zeros > 0 ? zeros * Math.log(1 - p) : 0));
}

// ------------------------------------------------------------------ inference

export interface CoefficientRow {
  name: string;
  estimate: number;
  se: number;
  z: number;
  /** Two-sided normal p-value. */
  p: number;
  ciLower: number;
  ciUpper: number;
  /** exp(estimate) and its interval (logit link only). */
  oddsRatio?: number;
  oddsRatioCiLower?: number;
  oddsRatioCiUpper?: number;
}

/** The covariance a fit uses by default: cluster-robust when clusters were given, else model-based. */
export function defaultCovariance(fit: GlmFit): CovarianceType {
  return fit.covariance.cluster ? "cluster" : "model";
}

export function covarianceMatrix(fit: GlmFit, type: CovarianceType = defaultCovariance(fit)): Float64Array {
  const v = fit.covariance[type];
  if (!v) throw new Error(`no '${type}' covariance: pass clusters when fitting`);
  return v;
}

/**
 * Wald z table with (1 - alpha) normal intervals and, for logit, odds ratios. Aliased
 * coefficients (R's NA rows) are left out; `fit.aliased` names them.
 */
export function coefficientTable(
  fit: GlmFit,
  type: CovarianceType = defaultCovariance(fit),
  level = 0.95,
): CoefficientRow[] {
  const v = covarianceMatrix(fit, type);
  const k = fit.design.nCols;
  const zCrit = level === 0.95 ? 1.959963984540054 : normalQuantile(1 - (1 - level) / 2);
  const aliased = new Set(fit.aliased.map((a) => a.column));
  return fit.coefficientNames.flatMap((name, j) => {
    if (aliased.has(name)) return [];
    const estimate = fit.coefficients[j];
    const se = Math.sqrt(v[j * k + j]);
    const z = estimate / se;
    const ciLower = estimate - zCrit * se;
    const ciUpper = estimate + zCrit * se;
    const row: CoefficientRow = { name, estimate, se, z, p: twoSidedNormalP(z), ciLower, ciUpper };
    if (fit.link === "logit") {
      row.oddsRatio = Math.exp(estimate);
      row.oddsRatioCiLower = Math.exp(ciLower);
      row.oddsRatioCiUpper = Math.exp(ciUpper);
    }
    return [row];
  });
}

export interface WaldTest {
  /** The coefficients tested (the estimable, non-redundant ones); df is their number. */
  coefficients: string[];
  chi2: number;
  df: number;
  p: number;
  /** Named coefficients left out as aliased in the design (NaN, R's NA). */
  aliased?: string[];
  /**
   * Named coefficients left out because, under the covariance used, they are linear
   * combinations of the tested ones (a singular covariance block): their hypotheses are
   * implied by the others, so each adds no degree of freedom.
   */
  redundant?: string[];
}

/** Thrown when none of a test's coefficients is estimable. */
export class NotEstimableError extends EstimabilityError {
  constructor(message: string) {
    super(message);
    this.name = "NotEstimableError";
  }
}

/**
 * Joint Wald test that the named coefficients are all zero: W = b' V^-1 b ~ chi2(df). Aliased
 * coefficients are left out, and so are coefficients whose covariance block is singular given
 * the ones before them (a Cholesky of V's block skipping relative pivots below 1e-10):
 * df counts the coefficients actually tested, as R counts the estimable ones.
 */
export function waldTest(
  fit: { coefficients: Float64Array; design: DesignMatrix },
  names: readonly string[],
  covariance: Float64Array,
): WaldTest {
  const all = columnIndices(fit.design, names);
  const aliased = all.filter((j) => !Number.isFinite(fit.coefficients[j]));
  const estimable = all.filter((j) => Number.isFinite(fit.coefficients[j]));
  const k = fit.design.nCols;
  const independent = independentColumns(subMatrix(covariance, k, estimable), estimable.length).map(
    (a) => estimable[a],
  );
  const label = (idx: number[]) => idx.map((j) => fit.design.columnNames[j]);
  if (independent.length === 0) {
    throw new NotEstimableError(
      `none of ${names.map((n) => `'${n}'`).join(", ")} is estimable` +
        (aliased.length ? ` (aliased: ${label(aliased).join(", ")})` : " (zero variance)"),
    );
  }
  const redundant = estimable.filter((j) => !independent.includes(j));
  const b = independent.map((j) => fit.coefficients[j]);
  const chi2 = inverseQuadraticForm(subMatrix(covariance, k, independent), independent.length, b);
  return {
    coefficients: label(independent),
    chi2,
    df: independent.length,
    p: chiSquareSf(chi2, independent.length),
    ...(aliased.length ? { aliased: label(aliased) } : {}),
    ...(redundant.length ? { redundant: label(redundant) } : {}),
  };
}

/** Joint Wald test on a GLM with one of its covariances (default: cluster-robust if available). */
export function glmWaldTest(
  fit: GlmFit,
  names: readonly string[],
  type: CovarianceType = defaultCovariance(fit),
): WaldTest {
  return waldTest(fit, names, covarianceMatrix(fit, type));
}

/** Omnibus Wald test of a term: all its columns (a factor's levels, or an interaction block) zero. */
export function termWaldTest(fit: GlmFit, term: string, type: CovarianceType = defaultCovariance(fit)): WaldTest {
  return glmWaldTest(fit, termColumnNames(fit.design, term), type);
}

export interface LikelihoodRatioTest {
  chi2: number;
  df: number;
  p: number;
}

/** LR test of nested models by maximized log-likelihood: 2 (l_full - l_restricted) ~ chi2(df difference). */
export function likelihoodRatioTest(
  restricted: { logLik: number; nParameters: number },
  full: { logLik: number; nParameters: number },
): LikelihoodRatioTest {
  const df = full.nParameters - restricted.nParameters;
  if (df <= 0) throw new Error("the full model must have more parameters than the restricted one");
  const chi2 = 2 * (full.logLik - restricted.logLik);
  return { chi2, df, p: chiSquareSf(chi2, df) };
}
