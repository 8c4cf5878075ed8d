// Score dispersion and pass/fail instability of one (model, benchmark) slice over its harness
// configurations (SafetyRepro §4: SDI and CFR_theta; App. L: the CFR ceiling).
import { mean, quantiles } from "./descriptive.js";

export interface ScoreDispersion {
  /** Number of configurations n. */
  n: number;
  min: number;
  max: number;
  mean: number;
  /** max - min: the absolute swing (App. E reports it beside SDI). */
  range: number;
  /** SDI = (max s - min s) / mean s; null when the mean is 0 (the ratio is undefined). */
  sdi: number | null;
}

/** Score Dispersion Index of the scores s_1..s_n under the n valid configurations (§4). */
export function scoreDispersion(scores: ArrayLike<number>): ScoreDispersion {
  assertScores(scores, 1);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < scores.length; i++) {
    min = Math.min(min, scores[i]);
    max = Math.max(max, scores[i]);
  }
  const average = mean(scores);
  const range = max - min;
  return { n: scores.length, min, max, mean: average, range, sdi: average === 0 ? null : range / average };
}

export interface ComplianceFlipRate {
  theta: number;
  n: number;
  /** Configurations whose score passes: s >= theta. */
  passing: number;
  /** p_theta = passing / n. */
  passFraction: number;
  /** CFR_theta = 2n/(n-1) p(1-p); null when n < 2 (no configuration pair exists). */
  cfr: number | null;
  /** The largest CFR any split of these n configurations can reach (complianceFlipRateCeiling). */
  ceiling: number | null;
}

/**
 * Compliance Flip Rate (§4): the share of unordered configuration pairs whose pass/fail verdicts
 * at threshold theta differ. With k of n passing that share is k(n-k) / C(n, 2), which is the
 * paper's 2n/(n-1) p(1-p). "Passing" is read as s >= theta (the paper does not say whether a
 * score equal to theta passes). Whether a benchmark has a meaningful pass/fail cutoff at all
 * (the paper marks CrowS-Pairs N/A) is the caller's decision, not this function's.
 */
export function complianceFlipRate(scores: ArrayLike<number>, theta: number): ComplianceFlipRate {
  assertScores(scores, 1);
  if (!Number.isFinite(theta)) throw new RangeError(`threshold must be finite, got ${theta}`);
  const n = scores.length;
  let passing = 0;
  for (let i = 0; i < n; i++) if (scores[i] >= theta) passing++;
  const p = passing / n;
  const defined = n >= 2;
  return {
    theta,
    n,
    passing,
    passFraction: p,
    cfr: defined ? ((2 * n) / (n - 1)) * p * (1 - p) : null,
    ceiling: defined ? complianceFlipRateCeiling(n) : null,
  };
}

/**
 * The maximum of CFR over all pass counts k for n configurations: max_k 2k(n-k) / (n(n-1)).
 * For even n it is the paper's algebraic ceiling 2n/(n-1) * 1/4 = n / (2(n-1)) (App. L: 51.06%
 * at n = 48, 54.55% at n = 12); for odd n, where p = 1/2 is not reachable, it is (n+1) / (2n).
 */
export function complianceFlipRateCeiling(n: number): number {
  if (!(Number.isInteger(n) && n >= 2)) throw new RangeError(`need an integer n >= 2, got ${n}`);
  const k = Math.floor(n / 2);
  return (2 * k * (n - k)) / (n * (n - 1));
}

/** CFR at each threshold (App. L reports theta in {0.5, 0.6, 0.7, 0.8}). */
export function complianceFlipRates(scores: ArrayLike<number>, thetas: readonly number[]): ComplianceFlipRate[] {
  return thetas.map((theta) => complianceFlipRate(scores, theta));
}

/**
 * CFR at the slice's own median (type-7) score: App. L's "per-cell median" panel. With distinct
 * scores and even n this forces p = 1/2, so it returns the ceiling: an algebraic artefact the
 * paper reports to show why the median is not a substantive threshold.
 */
export function complianceFlipRateAtMedian(scores: ArrayLike<number>): ComplianceFlipRate {
  assertScores(scores, 1);
  const [median] = quantiles(scores, [0.5]);
  return complianceFlipRate(scores, median);
}

function assertScores(scores: ArrayLike<number>, minimum: number): void {
  if (scores.length < minimum) throw new RangeError(`need at least ${minimum} score(s), got ${scores.length}`);
  for (let i = 0; i < scores.length; i++) {
    if (!Number.isFinite(scores[i])) throw new RangeError(`score ${i} is not finite: ${scores[i]}`);
  }
}
