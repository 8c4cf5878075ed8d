/**
 * How much of one model's score each condition axis moves: a logistic GLMM on the model's pooled
 * trials, `y ~ axes + study + benchmark + (1 | item)`, each axis deviation-coded over its levels
 * (0 on the trials of a study without that facet).
 * An axis's variance is the mean square of its level effects on the logit scale (they sum to zero),
 * less their sampling variance; its share is that variance over the sum of every axis's and the
 * variance of the study offsets (what differs between studies beyond their axes). Why this
 * decomposition, and why its intervals simulate the fitted fixed effects rather than refit item
 * resamples: docs/ANALYSIS.md, "Across studies".
 */
import {
  buildDesign,
  ConvergenceError,
  EstimabilityError,
  fitGlmmRandomIntercept,
  type GlmmFit,
  type Interval,
  percentileInterval,
  RandomStream,
  SeparationError,
} from "../../stats/index.js";
import { cholesky, NotPositiveDefiniteError, unlessSingular } from "../../stats/models/linalg.js";
import type { Pool, PooledTrial } from "./profile-pool.js";

/** lme4's default gradient tolerance (check.conv.grad): a fit above it is flagged as not converged. */
const GRADIENT_TOLERANCE = 0.002;

/** The component for study offsets not explained by an axis (present with two or more studies). */
export const BETWEEN_STUDIES = "between studies";

export interface AxisShare {
  /** An axis name, or BETWEEN_STUDIES. */
  axis: string;
  /** Share of the variance of the fitted condition effects, with its bootstrap percentile interval. */
  share: number;
  ci: Interval | null;
  /** SD of the level effects (logit scale), with its interval. */
  sd: number;
  sdCi: Interval | null;
  /** Level (or study) -> effect on the logit scale, deviations from the axis mean. */
  effects: Record<string, number>;
}

export interface AxisDecomposition {
  shares: AxisShare[];
  /** SD of the item random intercepts (logit scale). */
  itemSd: number;
  converged: boolean;
  /** Simulated fixed effects behind the intervals (0 when their covariance is not positive definite). */
  draws: number;
}

/** One model's trials as numeric design columns, their outcomes and items. */
interface ModelDesign {
  names: string[];
  columns: Float64Array[];
  y: Float64Array;
  /** Each trial's item: the random intercept's group. */
  items: Int32Array;
}

/** Columns: per axis, levels 1.. (+1 at the level, -1 at level 0, 0 elsewhere); study and benchmark indicators. */
function modelDesign(pool: Pool, trials: readonly PooledTrial[], benchmarkOf: (item: number) => number): ModelDesign {
  const names: string[] = [];
  const columns: Float64Array[] = [];
  const add = (name: string, value: (t: PooledTrial) => number) => {
    names.push(name);
    columns.push(Float64Array.from(trials, value));
  };
  // Axis columns come first: where an axis varies only between studies, the pivoted fit drops the
  // study column it aliases (R's convention), so the axis carries that difference.
  pool.axes.forEach((axis, a) => {
    for (let l = 1; l < axis.levels.length; l++) {
      add(`a${a}l${l}`, (t) => (t.levels[a] === l ? 1 : t.levels[a] === 0 ? -1 : 0));
    }
  });
  for (let s = 1; s < pool.studies.length; s++) add(`s${s}`, (t) => (t.study === s ? 1 : 0));
  for (let b = 1; b < pool.benchmarks.length; b++) add(`b${b}`, (t) => (benchmarkOf(t.item) === b ? 1 : 0));
  return { names, columns, y: Float64Array.from(trials, (t) => t.y), items: Int32Array.from(trials, (t) => t.item) };
}

/** The GLMM of one model's trials, items as random intercepts. */
/** What the data can make a GLMM fit fail with; any other error is a bug and surfaces. */
function isFitFailure(error: unknown): error is Error {
  return [EstimabilityError, NotPositiveDefiniteError, ConvergenceError, SeparationError].some(
    (t) => error instanceof t,
  );
}

function fitOn(design: ModelDesign): GlmmFit {
  const table = Object.fromEntries(design.names.map((name, j) => [name, design.columns[j]]));
  return fitGlmmRandomIntercept(buildDesign(table, { terms: design.names }), design.y, design.items);
}

/** One effect of a component as a linear combination of the fit's coefficients: column index -> weight. */
type Combination = Map<number, number>;

interface Component {
  axis: string;
  /** Level (or study label) -> its effect as a combination of coefficients. */
  effects: [string, Combination][];
}

/** The components: each axis's level effects (sum-to-zero coding), the studies' offsets centred on their mean. */
function components(pool: Pool, fit: GlmmFit): Component[] {
  const column = (name: string) => fit.coefficientNames.indexOf(name);
  const list: Component[] = pool.axes.map((axis, a) => {
    const columns = axis.levels.slice(1).map((_, i) => column(`a${a}l${i + 1}`));
    const first: Combination = new Map(columns.map((j) => [j, -1]));
    return {
      axis: axis.name,
      effects: axis.levels.map((level, l) => [level, l === 0 ? first : new Map([[columns[l - 1], 1]])]),
    };
  });
  if (pool.studies.length > 1) {
    const columns = pool.studies.slice(1).map((_, s) => column(`s${s + 1}`));
    const count = pool.studies.length;
    list.push({
      axis: BETWEEN_STUDIES,
      effects: pool.studies.map((study, s) => [
        study.label,
        new Map(columns.map((j, t) => [j, (t + 1 === s ? 1 : 0) - 1 / count])),
      ]),
    });
  }
  return list;
}

/** Fixed effects and their covariance (lme4's Hessian-based vcov): the fit's, or a draw's with the fit's covariance. */
interface Estimates {
  coefficients: Float64Array;
  covariance: Float64Array;
}

/** A combination's estimate and sampling variance; an aliased column (NaN) adds nothing. */
function estimate(fixed: Estimates, combination: Combination): { value: number; variance: number } {
  const k = fixed.coefficients.length;
  const finite = (v: number) => (Number.isFinite(v) ? v : 0);
  let value = 0;
  let variance = 0;
  for (const [i, wi] of combination) {
    value += wi * finite(fixed.coefficients[i]);
    for (const [j, wj] of combination) variance += wi * wj * finite(fixed.covariance[i * k + j]);
  }
  return { value, variance };
}

/**
 * Per component: its effects and the variance they carry, the mean square of the estimated effects
 * less their mean sampling variance (as omega^2 corrects eta^2: estimated effects scatter by their
 * noise even where the true effects are zero), at least 0; and its share of the components' total.
 */
function variances(
  list: readonly Component[],
  fixed: Estimates,
): { axis: string; variance: number; share: number; effects: Record<string, number> }[] {
  const measured = list.map((c) => {
    const estimates = c.effects.map(([level, combination]) => [level, estimate(fixed, combination)] as const);
    const meanSquare = estimates.reduce((t, [, e]) => t + e.value * e.value, 0) / estimates.length;
    const noise = estimates.reduce((t, [, e]) => t + e.variance, 0) / estimates.length;
    return {
      axis: c.axis,
      variance: Math.max(0, meanSquare - noise),
      effects: Object.fromEntries(estimates.map(([level, e]) => [level, e.value])),
    };
  });
  const total = measured.reduce((t, c) => t + c.variance, 0);
  return measured.map((c) => ({ ...c, share: total > 0 ? c.variance / total : Number.NaN }));
}

/**
 * Draws of the fixed effects from their fitted normal distribution, N(beta, V) on the estimable
 * columns (aliased ones stay NaN): one refit per item resample would cost a Laplace fit each, minutes
 * at the papers' scale. Null when V is not positive definite.
 */
function simulatedEstimates(fit: GlmmFit, draws: number, seed: number): Estimates[] | null {
  const kept = Array.from(fit.coefficients).flatMap((v, j) => (Number.isFinite(v) ? [j] : []));
  const k = fit.coefficients.length;
  const r = kept.length;
  const sub = new Float64Array(r * r);
  for (let a = 0; a < r; a++)
    for (let b = 0; b < r; b++) sub[a * r + b] = fit.covariance.hessian[kept[a] * k + kept[b]];
  // A singular Hessian block leaves no draws; any other error is a bug and surfaces.
  const root = unlessSingular(() => cholesky(sub, r));
  if (!root) return null;
  const stream = RandomStream.fromSeed(seed);
  return Array.from({ length: draws }, () => {
    const z = Array.from({ length: r }, () => stream.normal());
    const coefficients = Float64Array.from(fit.coefficients);
    for (let a = 0; a < r; a++) {
      let shift = 0;
      for (let b = 0; b <= a; b++) shift += root[a * r + b] * z[b];
      coefficients[kept[a]] += shift;
    }
    return { coefficients, covariance: fit.covariance.hessian };
  });
}

/**
 * The decomposition of one model's condition effects, with percentile intervals over `draws`
 * simulated fixed effects (seeded). An error when the GLMM cannot be fitted.
 */
export function decomposeAxes(
  pool: Pool,
  trials: readonly PooledTrial[],
  simulation: { draws: number; seed: number; level: number },
): AxisDecomposition | { error: string } {
  const benchmarkIndex = new Map(pool.benchmarks.map((b, i) => [b, i]));
  const benchmarkOf = (item: number) => benchmarkIndex.get(pool.items[item].split("\u0000")[0]) ?? 0;
  const design = modelDesign(pool, trials, benchmarkOf);
  let fit: GlmmFit;
  try {
    fit = fitOn(design);
  } catch (error) {
    if (!isFitFailure(error)) throw error;
    return { error: `the GLMM could not be fitted: ${error.message}` };
  }
  const list = components(pool, fit);
  const observed = variances(list, { coefficients: fit.coefficients, covariance: fit.covariance.hessian });
  const simulated = (simulatedEstimates(fit, simulation.draws, simulation.seed) ?? []).map((draw) =>
    variances(list, draw),
  );
  const interval = (values: number[]): Interval | null => {
    const finite = values.filter(Number.isFinite);
    return finite.length ? percentileInterval(finite, simulation.level) : null;
  };
  return {
    shares: observed.map((c, k) => ({
      axis: c.axis,
      share: c.share,
      ci: interval(simulated.map((draw) => draw[k].share)),
      sd: Math.sqrt(c.variance),
      sdCi: interval(simulated.map((draw) => Math.sqrt(draw[k].variance))),
      effects: c.effects,
    })),
    itemSd: fit.theta,
    converged: fit.maxAbsGradient <= GRADIENT_TOLERANCE,
    draws: simulated.length,
  };
}
