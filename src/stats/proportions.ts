// Confidence intervals for one proportion and comparisons of two independent proportions.
// Definitions follow statsmodels 0.13 / the golden README: Wald intervals are NOT clipped unless
// named so, ratio intervals add no 0.5 to empty cells (they are reported as undefined instead).
import type { Interval } from "./descriptive.js";
import { betaQuantile, normalQuantile, normalTwoSidedP } from "./distributions.js";

export type ProportionCiMethod = "wald" | "wald-clipped" | "wilson" | "clopper-pearson" | "agresti-coull";

/** z_(1 - alpha/2). */
export function twoSidedCriticalValue(alpha: number): number {
  return normalQuantile(1 - alpha / 2);
}

function assertCounts(count: number, nobs: number): void {
  if (!(nobs > 0 && count >= 0 && count <= nobs)) {
    throw new RangeError(`need 0 <= count <= nobs and nobs > 0, got count=${count}, nobs=${nobs}`);
  }
}

function clip01(interval: Interval): Interval {
  return [Math.max(0, interval[0]), Math.min(1, interval[1])];
}

/** Wald standard error sqrt(p(1-p)/n). */
export function waldStandardError(count: number, nobs: number): number {
  assertCounts(count, nobs);
  const p = count / nobs;
  return Math.sqrt((p * (1 - p)) / nobs);
}

/** Confidence interval for count/nobs at level 1 - alpha. */
export function proportionCi(
  count: number,
  nobs: number,
  alpha = 0.05,
  method: ProportionCiMethod = "wilson",
): Interval {
  assertCounts(count, nobs);
  const z = twoSidedCriticalValue(alpha);
  switch (method) {
    case "wald":
      return waldInterval(count, nobs, z);
    case "wald-clipped":
      return clip01(waldInterval(count, nobs, z));
    case "wilson":
      return wilsonInterval(count, nobs, z);
    case "agresti-coull":
      return agrestiCoullInterval(count, nobs, z);
    case "clopper-pearson":
      return clopperPearsonInterval(count, nobs, alpha);
  }
}

function waldInterval(count: number, nobs: number, z: number): Interval {
  const p = count / nobs;
  const half = z * Math.sqrt((p * (1 - p)) / nobs);
  return [p - half, p + half];
}

function wilsonInterval(count: number, nobs: number, z: number): Interval {
  const p = count / nobs;
  const z2 = z * z;
  const denominator = 1 + z2 / nobs;
  const center = (p + z2 / (2 * nobs)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / nobs + z2 / (4 * nobs * nobs));
  return [center - half, center + half];
}

/** Agresti-Coull: Wald on (x + z^2/2)/(n + z^2), clipped to [0, 1] as statsmodels does. */
function agrestiCoullInterval(count: number, nobs: number, z: number): Interval {
  const z2 = z * z;
  const nTilde = nobs + z2;
  const pTilde = (count + z2 / 2) / nTilde;
  const half = z * Math.sqrt((pTilde * (1 - pTilde)) / nTilde);
  return clip01([pTilde - half, pTilde + half]);
}

/** Exact (beta) interval; lower = 0 when x = 0 and upper = 1 when x = n. */
function clopperPearsonInterval(count: number, nobs: number, alpha: number): Interval {
  const lower = count === 0 ? 0 : betaQuantile(alpha / 2, count, nobs - count + 1);
  const upper = count === nobs ? 1 : betaQuantile(1 - alpha / 2, count + 1, nobs - count);
  return [lower, upper];
}

// ---------------------------------------------------------------- two independent proportions

export interface TwoProportionCounts {
  x1: number;
  n1: number;
  x2: number;
  n2: number;
}

/** An estimate on the ratio scale, or null with the reason when it is undefined. */
export interface RatioEstimate {
  estimate: number | null;
  /** Standard error of the log estimate. */
  seLog: number | null;
  ci: Interval | null;
  undefinedReason?: string;
}

export interface RiskDifferenceCi {
  estimate: number;
  ci: Interval;
}

/** RD = p1 - p2 with the unpooled Wald CI. */
export function riskDifferenceWald(counts: TwoProportionCounts, alpha = 0.05): RiskDifferenceCi & { se: number } {
  const { p1, p2 } = proportionsOf(counts);
  const se = Math.sqrt((p1 * (1 - p1)) / counts.n1 + (p2 * (1 - p2)) / counts.n2);
  const z = twoSidedCriticalValue(alpha);
  const estimate = p1 - p2;
  return { estimate, se, ci: [estimate - z * se, estimate + z * se] };
}

/** RD with Newcombe's hybrid score interval (method 10), built from the two Wilson intervals. */
export function riskDifferenceNewcombe(counts: TwoProportionCounts, alpha = 0.05): RiskDifferenceCi {
  const { p1, p2 } = proportionsOf(counts);
  const [l1, u1] = proportionCi(counts.x1, counts.n1, alpha, "wilson");
  const [l2, u2] = proportionCi(counts.x2, counts.n2, alpha, "wilson");
  const estimate = p1 - p2;
  return {
    estimate,
    ci: [estimate - Math.hypot(p1 - l1, u2 - p2), estimate + Math.hypot(p2 - l2, u1 - p1)],
  };
}

/** RR = p1/p2 with the log-Wald CI; undefined when a group has no events (no 0.5 is added). */
export function riskRatio(counts: TwoProportionCounts, alpha = 0.05): RatioEstimate {
  const { x1, n1, x2, n2 } = counts;
  assertTwoGroups(counts);
  if (x1 === 0 || x2 === 0) {
    return undefinedRatio(`risk ratio needs events in both groups (x1=${x1}, x2=${x2})`);
  }
  const estimate = x1 / n1 / (x2 / n2);
  const seLog = Math.sqrt(1 / x1 - 1 / n1 + 1 / x2 - 1 / n2);
  return { estimate, seLog, ci: logScaleInterval(estimate, seLog, alpha) };
}

/** OR with the logit-Wald CI; undefined when any of the four cells is empty (no 0.5 is added). */
export function oddsRatio(counts: TwoProportionCounts, alpha = 0.05): RatioEstimate {
  const { x1, n1, x2, n2 } = counts;
  assertTwoGroups(counts);
  if (x1 === 0 || x2 === 0 || x1 === n1 || x2 === n2) {
    return undefinedRatio(`odds ratio needs all four cells non-empty (x1=${x1}/${n1}, x2=${x2}/${n2})`);
  }
  const estimate = (x1 / (n1 - x1)) * ((n2 - x2) / x2);
  const seLog = Math.sqrt(1 / x1 + 1 / (n1 - x1) + 1 / x2 + 1 / (n2 - x2));
  return { estimate, seLog, ci: logScaleInterval(estimate, seLog, alpha) };
}

function logScaleInterval(estimate: number, seLog: number, alpha: number): Interval {
  const z = twoSidedCriticalValue(alpha);
  const logEstimate = Math.log(estimate);
  return [Math.exp(logEstimate - z * seLog), Math.exp(logEstimate + z * seLog)];
}

function undefinedRatio(reason: string): RatioEstimate {
  return { estimate: null, seLog: null, ci: null, undefinedReason: reason };
}

/** Pooled-variance two-proportion z test (statsmodels proportions_ztest), two-sided. */
export function twoProportionZTest(counts: TwoProportionCounts): { z: number; p: number } {
  const { p1, p2 } = proportionsOf(counts);
  const pooled = (counts.x1 + counts.x2) / (counts.n1 + counts.n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / counts.n1 + 1 / counts.n2));
  const z = (p1 - p2) / se;
  return { z, p: normalTwoSidedP(z) };
}

/**
 * Altman's confidence set of a number needed (BMJ 1998;317:1309), from a risk difference of a
 * good outcome (safe/correct; RD = condition minus reference, negative is harm). When the RD
 * interval excludes 0 it is one bounded piece, the inverses of its ends: NNH for harm, NNT for
 * benefit. When it includes 0 it is the disjoint set "NNT 1/hi to infinity to NNH 1/|lo|": both
 * pieces run to infinity (an end that touches 0 leaves only the other piece).
 */
export interface AltmanInterval {
  /** The RD interval excludes 0: a single bounded piece. */
  bounded: boolean;
  /** Numbers needed to harm in the set; null when none. */
  harm: NumberNeededRange | null;
  /** Numbers needed to treat (benefit) in the set, likewise. */
  benefit: NumberNeededRange | null;
}

/** A range of numbers needed; `upper` null is infinity (kept JSON-safe: JSON has no Infinity). */
export interface NumberNeededRange {
  lower: number;
  upper: number | null;
}

export interface NumberNeeded {
  /** 1/|RD|; null when RD = 0 (no difference: infinitely many needed). */
  value: number | null;
  /** "harm" when RD < 0 (NNH), "benefit" when RD > 0 (NNT), "none" when RD = 0. */
  direction: "harm" | "benefit" | "none";
  /**
   * [1/max(|lo|,|hi|), 1/min(|lo|,|hi|)] from the RD interval when it excludes 0. null when the RD
   * interval contains or touches 0: the set is then unbounded and split in two pieces (harm and
   * benefit), which no single interval describes; `interval` holds both.
   */
  ci: Interval | null;
  /** Altman's interval: always defined from the RD interval. */
  interval: AltmanInterval;
}

export function altmanInterval(rdCi: Interval): AltmanInterval {
  const [lo, hi] = rdCi;
  if (hi < 0) return { bounded: true, harm: { lower: 1 / -lo, upper: 1 / -hi }, benefit: null };
  if (lo > 0) return { bounded: true, harm: null, benefit: { lower: 1 / hi, upper: 1 / lo } };
  return {
    bounded: false,
    harm: lo < 0 ? { lower: 1 / -lo, upper: null } : null,
    benefit: hi > 0 ? { lower: 1 / hi, upper: null } : null,
  };
}

/**
 * Number needed to harm (or treat), 1/|RD|, with its CI transformed from an RD CI. The RD is of
 * a good outcome: negative is harm (NNH), positive benefit (NNT).
 */
export function numberNeededToHarm(riskDifference: number, rdCi: Interval): NumberNeeded {
  const value = riskDifference === 0 ? null : 1 / Math.abs(riskDifference);
  const [lo, hi] = rdCi;
  const excludesZero = lo > 0 || hi < 0;
  const ci: Interval | null = excludesZero
    ? [1 / Math.max(Math.abs(lo), Math.abs(hi)), 1 / Math.min(Math.abs(lo), Math.abs(hi))]
    : null;
  const direction = riskDifference < 0 ? "harm" : riskDifference > 0 ? "benefit" : "none";
  return { value, direction, ci, interval: altmanInterval(rdCi) };
}

export interface TwoProportionComparison {
  p1: number;
  p2: number;
  riskDifference: number;
  seRiskDifferenceWald: number;
  riskDifferenceCiWald: Interval;
  riskDifferenceCiNewcombe: Interval;
  riskRatio: RatioEstimate;
  oddsRatio: RatioEstimate;
  nnhFromWald: NumberNeeded;
  nnhFromNewcombe: NumberNeeded;
  zTest: { z: number; p: number };
}

/** Everything about two independent proportions at once. */
export function compareTwoProportions(counts: TwoProportionCounts, alpha = 0.05): TwoProportionComparison {
  const { p1, p2 } = proportionsOf(counts);
  const wald = riskDifferenceWald(counts, alpha);
  const newcombe = riskDifferenceNewcombe(counts, alpha);
  return {
    p1,
    p2,
    riskDifference: wald.estimate,
    seRiskDifferenceWald: wald.se,
    riskDifferenceCiWald: wald.ci,
    riskDifferenceCiNewcombe: newcombe.ci,
    riskRatio: riskRatio(counts, alpha),
    oddsRatio: oddsRatio(counts, alpha),
    nnhFromWald: numberNeededToHarm(wald.estimate, wald.ci),
    nnhFromNewcombe: numberNeededToHarm(newcombe.estimate, newcombe.ci),
    zTest: twoProportionZTest(counts),
  };
}

function assertTwoGroups(counts: TwoProportionCounts): void {
  assertCounts(counts.x1, counts.n1);
  assertCounts(counts.x2, counts.n2);
}

function proportionsOf(counts: TwoProportionCounts): { p1: number; p2: number } {
  assertTwoGroups(counts);
  return { p1: counts.x1 / counts.n1, p2: counts.x2 / counts.n2 };
}
