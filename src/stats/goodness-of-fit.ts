// Pearson chi-square goodness of fit (scipy.stats.chisquare with ddof).
import { chiSquareSf } from "./distributions.js";

export interface ChiSquareGofResult {
  expectedCounts: number[];
  ddof: number;
  /** k - 1 - ddof. */
  df: number;
  statistic: number;
  p: number;
}

/**
 * X2 = sum (O - E)^2/E with E = n * probabilities (uniform when omitted); `ddof` removes degrees of
 * freedom for parameters estimated from the same counts.
 */
export function chiSquareGoodnessOfFit(
  observed: readonly number[],
  probabilities?: readonly number[] | null,
  ddof = 0,
): ChiSquareGofResult {
  const k = observed.length;
  const n = observed.reduce((a, b) => a + b, 0);
  const probs = probabilities ?? observed.map(() => 1 / k);
  if (probs.length !== k) throw new RangeError(`${k} categories but ${probs.length} probabilities`);
  const probabilityTotal = probs.reduce((a, b) => a + b, 0);
  if (Math.abs(probabilityTotal - 1) > 1e-8) throw new RangeError(`probabilities sum to ${probabilityTotal}, not 1`);
  const df = k - 1 - ddof;
  if (df < 1) throw new RangeError(`no degrees of freedom left (k=${k}, ddof=${ddof})`);
  const expectedCounts = probs.map((p) => n * p);
  const statistic = observed.reduce((total, o, i) => total + (o - expectedCounts[i]) ** 2 / expectedCounts[i], 0);
  return { expectedCounts, ddof, df, statistic, p: chiSquareSf(statistic, df) };
}
