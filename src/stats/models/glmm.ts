// Logistic GLMM with one random intercept per group, fitted by maximum likelihood under the
// Laplace approximation (lme4 glmer, nAGQ = 1). With a single scalar random effect per group the
// penalized IRLS step separates into one 1-D Newton problem per group, solved to machine precision
// (lme4 with tolPwrss = 1e-13). The Laplace log-likelihood is then maximized jointly over
// (theta, beta), as lme4's second stage does, by Newton's method on its exact gradient.
//
// With u_g = theta v_g, v_g ~ N(0, 1) and conditional modes v^_g:
//   l(beta, theta) = sum_j log p(y_j | eta_j) - sum_g v^_g^2 / 2 - 1/2 sum_g log(1 + theta^2 W_g),
//   eta_j = x_j beta + theta v^_g, W_g = sum_{j in g} mu_j (1 - mu_j).
import {
  type AliasedColumn,
  columnValues,
  type DesignMatrix,
  estimableDesign,
  type FactorOptions,
  buildDesign,
  spreadFit,
  linearPredictor,
  type Table,
  weightedCrossProduct,
} from "./design.js";
import { parseFormula } from "./formula.js";
import { ConvergenceError, clusterCodes, fitBinomialGlm, responseColumn } from "./glm.js";
import { cholesky, choleskySolve, invertSpd, symmetrize, unlessSingular } from "./linalg.js";
import { normalQuantile, twoSidedNormalP } from "./tails.js";

export interface GlmmOptions {
  maxIterations?: number;
  /** Outer convergence: every |step| <= tolerance * (1 + |parameter|). */
  tolerance?: number;
}

export interface GlmmFit {
  design: DesignMatrix;
  coefficientNames: string[];
  /** One per design column; NaN for an aliased column (R's NA). */
  coefficients: Float64Array;
  /** Columns left out of the fit as linear combinations of earlier ones (empty at full rank). */
  aliased: AliasedColumn[];
  /** Random-intercept standard deviation (lme4's theta for a binomial model). */
  theta: number;
  randomInterceptVariance: number;
  /**
   * Covariances of the fixed effects: `hessian` = beta block of the inverse Hessian of -l in
   * (theta, beta) (lme4 vcov, use.hessian = TRUE); `conditional` = theta held fixed (lme4 R_X based).
   */
  covariance: { hessian: Float64Array; conditional: Float64Array };
  /** Conditional modes of the random intercepts u_g = theta v_g, in `groupLabels` order. */
  randomEffects: Float64Array;
  groupLabels: (string | number)[];
  logLik: number;
  /** Fixed effects + 1 variance parameter. */
  nParameters: number;
  aic: number;
  bic: number;
  nObs: number;
  nGroups: number;
  iterations: number;
  /** Largest |gradient| of the Laplace log-likelihood in (theta, beta) at the optimum (lme4's convergence check reads it). */
  maxAbsGradient: number;
}

/** Fits 'y ~ fixed terms + (1 | group)'. */
export function glmmRegression(
  table: Table,
  formula: string,
  options: GlmmOptions & { factors?: Readonly<Record<string, FactorOptions>> } = {},
): GlmmFit {
  const parsed = parseFormula(formula);
  if (!parsed.randomIntercept) throw new Error("the formula needs a random intercept '(1 | group)'");
  const column = table[parsed.randomIntercept];
  if (!column) throw new Error(`unknown grouping column '${parsed.randomIntercept}'`);
  const groups = columnValues(column);
  const design = buildDesign(table, { terms: parsed.terms, intercept: parsed.intercept, factors: options.factors });
  return fitGlmmRandomIntercept(design, responseColumn(table, parsed.response), groups, options);
}

/** Rows arranged by group, for the per-group inner problems. */
interface Grouping {
  count: number;
  labels: (string | number)[];
  start: Int32Array;
  rows: Int32Array;
  codes: Int32Array;
}

function groupRows(groups: ArrayLike<string | number>, n: number): Grouping {
  const { codes, count } = clusterCodes(groups, n);
  const labels: (string | number)[] = new Array(count);
  const size = new Int32Array(count + 1);
  for (let i = 0; i < n; i++) {
    size[codes[i] + 1]++;
    labels[codes[i]] = groups[i];
  }
  const start = new Int32Array(count + 1);
  for (let g = 0; g < count; g++) start[g + 1] = start[g] + size[g + 1];
  const fill = start.slice(0, count);
  const rows = new Int32Array(n);
  for (let i = 0; i < n; i++) rows[fill[codes[i]]++] = i;
  return { count, labels, start, rows, codes };
}

function softplus(eta: number): number {
  return Math.max(eta, 0) + Math.log1p(Math.exp(-Math.abs(eta)));
}

function logistic(eta: number): number {
  const e = Math.exp(-Math.abs(eta));
  return eta >= 0 ? 1 / (1 + e) : e / (1 + e);
}

/** The Laplace objective and its exact gradient for one design, outcome and grouping. */
class LaplaceObjective {
  readonly k: number;
  private readonly offset: Float64Array;
  /** Conditional modes v^ (warm start for the next evaluation). */
  readonly modes: Float64Array;

  constructor(
    readonly design: DesignMatrix,
    readonly y: Float64Array,
    readonly grouping: Grouping,
  ) {
    this.k = design.nCols;
    this.offset = new Float64Array(design.nRows);
    this.modes = new Float64Array(grouping.count);
  }

  /** p = [theta, beta...]; returns l and, when asked, dl/dp. */
  evaluate(p: Float64Array, withGradient: boolean): { logLik: number; gradient?: Float64Array } {
    const theta = p[0];
    const beta = p.subarray(1);
    linearPredictor(this.design, beta, this.offset);
    const { count, start, rows, codes } = this.grouping;
    let logLik = 0;
    const W = new Float64Array(count);
    const r = new Float64Array(count);
    const C = new Float64Array(count);
    for (let g = 0; g < count; g++) {
      const v = this.solveMode(g, theta);
      let ll = 0;
      for (let a = start[g]; a < start[g + 1]; a++) {
        const j = rows[a];
        const eta = this.offset[j] + theta * v;
        const mu = logistic(eta);
        const w = mu * (1 - mu);
        ll += this.y[j] * eta - softplus(eta);
        W[g] += w;
        r[g] += this.y[j] - mu;
        C[g] += w * (1 - 2 * mu);
      }
      logLik += ll - 0.5 * v * v - 0.5 * Math.log1p(theta * theta * W[g]);
    }
    if (!withGradient) return { logLik };
    return { logLik, gradient: this.gradient(theta, W, r, C, codes) };
  }

  /**
   * Exact total derivative. The mode's own dependence drops out of the first two terms (envelope);
   * the log-determinant term depends on beta and theta also through v^_g, by implicit differentiation:
   *   dv/dbeta = -theta B_g / (1 + theta^2 W_g),  dv/dtheta = (r_g - theta W_g v_g) / (1 + theta^2 W_g),
   * with B_g = sum w_j x_j, r_g = sum (y_j - mu_j), dw/deta = w (1 - 2 mu), C_g = sum dw/deta.
   */
  private gradient(theta: number, W: Float64Array, r: Float64Array, C: Float64Array, codes: Int32Array): Float64Array {
    const grad = new Float64Array(this.k + 1);
    const { rowPtr, colIdx, values } = this.design;
    const t2 = theta * theta;
    for (let j = 0; j < this.design.nRows; j++) {
      const g = codes[j];
      const v = this.modes[g];
      const eta = this.offset[j] + theta * v;
      const mu = logistic(eta);
      const w = mu * (1 - mu);
      const c = t2 / (1 + t2 * W[g]);
      const multiplier = this.y[j] - mu - 0.5 * c * w * (1 - 2 * mu) + 0.5 * c * c * C[g] * w;
      for (let a = rowPtr[j]; a < rowPtr[j + 1]; a++) grad[1 + colIdx[a]] += multiplier * values[a];
    }
    let dTheta = 0;
    for (let g = 0; g < W.length; g++) {
      const v = this.modes[g];
      const denominator = 1 + t2 * W[g];
      const dv = (r[g] - theta * W[g] * v) / denominator;
      const dW = C[g] * (v + theta * dv);
      dTheta += v * r[g] - (0.5 * (2 * theta * W[g] + t2 * dW)) / denominator;
    }
    grad[0] = dTheta;
    return grad;
  }

  /** Newton with step halving on h(v) = sum_j log p(y_j | o_j + theta v) - v^2/2 (strictly concave). */
  private solveMode(g: number, theta: number): number {
    let v = this.modes[g];
    let current = this.groupTerms(g, theta, v);
    for (let iteration = 0; iteration < 200; iteration++) {
      const step = current.d1 / -current.d2;
      let t = 1;
      let next = current;
      let candidate = v;
      for (let halving = 0; halving < 60; halving++) {
        candidate = v + t * step;
        next = this.groupTerms(g, theta, candidate);
        if (next.h >= current.h - 1e-14 * Math.abs(current.h)) break;
        t /= 2;
      }
      const moved = Math.abs(candidate - v);
      v = candidate;
      current = next;
      if (moved <= 1e-14 * (1 + Math.abs(v))) break;
    }
    this.modes[g] = v;
    return v;
  }

  private groupTerms(g: number, theta: number, v: number) {
    const { start, rows } = this.grouping;
    let h = -0.5 * v * v;
    let d1 = -v;
    let d2 = -1;
    for (let a = start[g]; a < start[g + 1]; a++) {
      const j = rows[a];
      const eta = this.offset[j] + theta * v;
      const mu = logistic(eta);
      h += this.y[j] * eta - softplus(eta);
      d1 += theta * (this.y[j] - mu);
      d2 -= theta * theta * mu * (1 - mu);
    }
    return { h, d1, d2 };
  }

  /** Hessian of l by central differences of the exact gradient (symmetrized). */
  hessian(p: Float64Array): Float64Array {
    const m = p.length;
    const h = new Float64Array(m * m);
    for (let i = 0; i < m; i++) {
      const step = 1e-5 * Math.max(1, Math.abs(p[i]));
      const plus = Float64Array.from(p);
      const minus = Float64Array.from(p);
      plus[i] += step;
      minus[i] -= step;
      const gp = this.evaluate(plus, true).gradient!;
      const gm = this.evaluate(minus, true).gradient!;
      for (let j = 0; j < m; j++) h[j * m + i] = (gp[j] - gm[j]) / (2 * step);
    }
    symmetrize(h, m);
    return h;
  }

  /** (X'WX - sum_g theta^2 B_g B_g' / (1 + theta^2 W_g))^-1: the fixed-effect covariance with theta fixed. */
  conditionalCovariance(p: Float64Array): Float64Array {
    this.evaluate(p, false);
    const theta = p[0];
    const k = this.k;
    const n = this.design.nRows;
    const w = new Float64Array(n);
    const { codes, count } = this.grouping;
    const B = new Float64Array(count * k);
    const W = new Float64Array(count);
    const { rowPtr, colIdx, values } = this.design;
    for (let j = 0; j < n; j++) {
      const mu = logistic(this.offset[j] + theta * this.modes[codes[j]]);
      w[j] = mu * (1 - mu);
      W[codes[j]] += w[j];
      for (let a = rowPtr[j]; a < rowPtr[j + 1]; a++) B[codes[j] * k + colIdx[a]] += w[j] * values[a];
    }
    const info = weightedCrossProduct(this.design, w);
    for (let g = 0; g < count; g++) {
      const c = (theta * theta) / (1 + theta * theta * W[g]);
      for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) info[a * k + b] -= c * B[g * k + a] * B[g * k + b];
    }
    return invertSpd(info, k);
  }
}

/** Fits the random-intercept logistic GLMM to 0/1 outcomes y with one group label per row. */
export function fitGlmmRandomIntercept(
  design: DesignMatrix,
  y: Float64Array,
  groups: ArrayLike<string | number>,
  options: GlmmOptions = {},
): GlmmFit {
  const estimable = estimableDesign(design);
  if (estimable.aliased.length === 0) return fitFullRank(design, y, groups, options);
  // As lme4, which drops aliased fixed-effect columns before fitting: fit the estimable columns.
  const fit = fitFullRank(estimable.design, y, groups, options);
  return { ...fit, ...spreadFit(fit, design, estimable) };
}

function fitFullRank(
  design: DesignMatrix,
  y: Float64Array,
  groups: ArrayLike<string | number>,
  options: GlmmOptions,
): GlmmFit {
  const start = fitBinomialGlm(design, y);
  const grouping = groupRows(groups, design.nRows);
  const objective = new LaplaceObjective(design, y, grouping);
  const initial = Float64Array.from([1, ...start.coefficients]);
  const { p, logLik, iterations } = maximize(objective, initial, options);
  const m = p.length;
  const k = design.nCols;
  const negHessianInverse = invertSpd(
    objective.hessian(p).map((v) => -v),
    m,
  );
  const hessian = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) hessian[a * k + b] = negHessianInverse[(a + 1) * m + b + 1];
  const conditional = objective.conditionalCovariance(p);
  const gradient = objective.evaluate(p, true).gradient!;
  objective.evaluate(p, false);
  const theta = Math.abs(p[0]);
  const nParameters = k + 1;
  return {
    design,
    coefficientNames: design.columnNames,
    coefficients: p.slice(1),
    aliased: [],
    theta,
    randomInterceptVariance: theta * theta,
    covariance: { hessian, conditional },
    randomEffects: objective.modes.map((v) => v * p[0]),
    groupLabels: grouping.labels,
    logLik,
    nParameters,
    aic: -2 * logLik + 2 * nParameters,
    bic: -2 * logLik + Math.log(design.nRows) * nParameters,
    nObs: design.nRows,
    nGroups: grouping.count,
    iterations,
    maxAbsGradient: Math.max(...Array.from(gradient, Math.abs)),
  };
}

/** Damped Newton ascent with a Levenberg shift whenever the Hessian is not negative definite. */
function maximize(objective: LaplaceObjective, initial: Float64Array, options: GlmmOptions) {
  const maxIterations = options.maxIterations ?? 100;
  const tolerance = options.tolerance ?? 1e-10;
  const m = initial.length;
  let p = initial;
  let current = objective.evaluate(p, true);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    const direction = ascentDirection(objective.hessian(p), current.gradient!, m);
    let t = 1;
    let candidate = p;
    let next = current;
    for (let halving = 0; halving < 50; halving++) {
      candidate = p.map((v, i) => v + t * direction[i]);
      next = objective.evaluate(candidate, true);
      if (next.logLik >= current.logLik - 1e-12 * Math.abs(current.logLik)) break;
      t /= 2;
    }
    const converged = candidate.every((v, i) => Math.abs(v - p[i]) <= tolerance * (1 + Math.abs(v)));
    p = candidate;
    current = next;
    if (converged) return { p, logLik: current.logLik, iterations: iteration };
  }
  throw new ConvergenceError(`GLMM Laplace optimization did not converge in ${maxIterations} iterations`);
}

function ascentDirection(hessian: Float64Array, gradient: Float64Array, m: number): Float64Array {
  const negative = hessian.map((v) => -v);
  const scale = Math.max(...Array.from({ length: m }, (_, i) => Math.abs(negative[i * m + i])), 1e-8);
  for (let shift = 0; ; shift = shift === 0 ? 1e-8 * scale : shift * 10) {
    const a = Float64Array.from(negative);
    for (let i = 0; i < m; i++) a[i * m + i] += shift;
    const direction = unlessSingular(() => choleskySolve(cholesky(a, m), m, gradient));
    if (direction) return direction;
    if (shift > 1e8 * scale) throw new ConvergenceError("GLMM: no ascent direction (degenerate Hessian)");
  }
}

export interface GlmmCoefficientRow {
  name: string;
  estimate: number;
  se: number;
  z: number;
  p: number;
  ciLower: number;
  ciUpper: number;
  oddsRatio: number;
}

/** Wald z table of the fixed effects (default covariance: the Hessian-based one, as lme4). */
export function glmmCoefficientTable(
  fit: GlmmFit,
  type: "hessian" | "conditional" = "hessian",
  level = 0.95,
): GlmmCoefficientRow[] {
  const v = fit.covariance[type];
  const k = fit.coefficients.length;
  const zCrit = level === 0.95 ? 1.959963984540054 : normalQuantile(1 - (1 - level) / 2);
  const aliased = new Set(fit.aliased.map((a) => a.column));
  // Aliased coefficients (R's NA rows) are left out; `fit.aliased` names them.
  return fit.coefficientNames.flatMap((name, j) => {
    if (aliased.has(name)) return [];
    const estimate = fit.coefficients[j];
    const se = Math.sqrt(v[j * k + j]);
    const z = estimate / se;
    return [
      {
        name,
        estimate,
        se,
        z,
        p: twoSidedNormalP(z),
        ciLower: estimate - zCrit * se,
        ciUpper: estimate + zCrit * se,
        oddsRatio: Math.exp(estimate),
      },
    ];
  });
}
