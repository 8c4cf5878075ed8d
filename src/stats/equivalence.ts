// Two one-sided tests (TOST) for equivalence of proportions within (-margin, +margin).
// p_TOST = max of the two one-sided p-values (statsmodels 0.13.5 reports the min by mistake,
// issue #8213); "equivalent" iff the (1 - 2 alpha) CI lies strictly inside (-margin, margin),
// which for these Wald tests is the same decision as p_TOST < alpha.
import type { Interval } from "./descriptive.js";
import { percentileInterval } from "./descriptive.js";
import { normalCdf, normalQuantile, normalSf } from "./distributions.js";
import type { TwoProportionCounts } from "./proportions.js";
import { twoSidedCriticalValue } from "./proportions.js";
import type { PairedTable } from "./paired.js";
import { pairedProportionDifference } from "./paired.js";

export interface TostResult {
  margin: number;
  alpha: number;
  difference: number;
  se: number;
  /** z for H0: d <= -margin. */
  zLower: number;
  pLower: number;
  /** z for H0: d >= +margin. */
  zUpper: number;
  pUpper: number;
  pTost: number;
  /** The (1 - 2 alpha) CI used by the CI rule (90% for alpha = 0.05). */
  ciTost: Interval;
  /** The ordinary (1 - alpha) CI, for reporting. */
  ci: Interval;
  equivalent: boolean;
}

/** TOST on a difference with a known (estimated) standard error, normal reference. */
export function tostFromEstimate(difference: number, se: number, margin: number, alpha = 0.05): TostResult {
  if (!(margin > 0)) throw new RangeError(`equivalence margin must be positive, got ${margin}`);
  const zLower = (difference + margin) / se;
  const zUpper = (difference - margin) / se;
  const pLower = normalSf(zLower);
  const pUpper = normalCdf(zUpper);
  const zOneSided = normalQuantile(1 - alpha);
  const zTwoSided = twoSidedCriticalValue(alpha);
  const ciTost: Interval = [difference - zOneSided * se, difference + zOneSided * se];
  return {
    margin,
    alpha,
    difference,
    se,
    zLower,
    pLower,
    zUpper,
    pUpper,
    pTost: Math.max(pLower, pUpper),
    ciTost,
    ci: [difference - zTwoSided * se, difference + zTwoSided * se],
    equivalent: intervalInsideMargin(ciTost, margin),
  };
}

function intervalInsideMargin(interval: Interval, margin: number): boolean {
  return interval[0] > -margin && interval[1] < margin;
}

/** TOST for p1 - p2 of independent proportions, Wald with the unpooled sample variance. */
export function tostTwoProportions(counts: TwoProportionCounts, margin: number, alpha = 0.05): TostResult {
  const p1 = counts.x1 / counts.n1;
  const p2 = counts.x2 / counts.n2;
  const se = Math.sqrt((p1 * (1 - p1)) / counts.n1 + (p2 * (1 - p2)) / counts.n2);
  return tostFromEstimate(p1 - p2, se, margin, alpha);
}

/** TOST for paired proportions: d = (n10 - n01)/n, var = [(n10 + n01)/n - d^2]/n. */
export function tostPairedProportions(table: PairedTable, margin: number, alpha = 0.05): TostResult {
  const paired = pairedProportionDifference(table, alpha);
  return tostFromEstimate(paired.difference, paired.se, margin, alpha);
}

export interface BootstrapTostResult {
  margin: number;
  alpha: number;
  /** Percentile (1 - 2 alpha) interval of the bootstrap replicates. */
  ciTost: Interval;
  equivalent: boolean;
}

/** Equivalence from bootstrap replicates: the (1 - 2 alpha) percentile CI inside (-margin, margin). */
export function tostFromBootstrap(replicates: ArrayLike<number>, margin: number, alpha = 0.05): BootstrapTostResult {
  if (!(margin > 0)) throw new RangeError(`equivalence margin must be positive, got ${margin}`);
  const finite = Array.from(replicates).filter(Number.isFinite);
  const ciTost = percentileInterval(finite, 1 - 2 * alpha);
  return { margin, alpha, ciTost, equivalent: intervalInsideMargin(ciTost, margin) };
}

/** The same data judged at several margins at once (a sensitivity analysis of the margin choice). */
export function marginSensitivity<T extends { equivalent: boolean }>(
  margins: readonly number[],
  evaluate: (margin: number) => T,
): { margin: number; result: T }[] {
  return margins.map((margin) => ({ margin, result: evaluate(margin) }));
}

/** max(|lo|, |hi|) of a (1 - 2 alpha) interval: equivalence holds for every margin strictly above it. */
export function smallestEquivalentMargin(ciTost: Interval): number {
  return Math.max(Math.abs(ciTost[0]), Math.abs(ciTost[1]));
}
