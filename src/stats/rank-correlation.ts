// Spearman's rho and Kendall's tau-b, matching scipy 1.10 (spearmanr; kendalltau variant 'b').
import { midRanks, pearsonCorrelation, tieGroupSizes } from "./descriptive.js";
import { normalTwoSidedP, tTwoSidedP } from "./distributions.js";

export interface SpearmanResult {
  n: number;
  rho: number;
  /** Two-sided p from Student t with n - 2 df; 0 when |rho| = 1. */
  p: number;
}

export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): SpearmanResult {
  assertPaired(x, y, 3);
  const n = x.length;
  const rho = pearsonCorrelation(midRanks(x), midRanks(y));
  if (Math.abs(rho) >= 1) return { n, rho, p: 0 };
  const t = rho * Math.sqrt((n - 2) / (1 - rho * rho));
  return { n, rho, p: tTwoSidedP(t, n - 2) };
}

export interface KendallResult {
  n: number;
  tauB: number;
  hasTies: boolean;
  concordant: number;
  discordant: number;
  /** Tie-corrected normal approximation, two-sided. */
  pAsymptotic: number;
  /** scipy's method='auto': exact when there are no ties and n <= 33, else asymptotic. */
  pAuto: number;
  pAutoMethod: "exact" | "asymptotic";
}

/** Kendall's tau-b. Pair counting is O(n^2), fine for the sizes of evaluation tables. */
export function kendallTauB(x: ArrayLike<number>, y: ArrayLike<number>): KendallResult {
  assertPaired(x, y, 2);
  const n = x.length;
  const { concordant, discordant } = countPairs(x, y);
  const xTies = tieGroupSizes(x);
  const yTies = tieGroupSizes(y);
  const n0 = (n * (n - 1)) / 2;
  const n1 = sumOver(xTies, (t) => (t * (t - 1)) / 2);
  const n2 = sumOver(yTies, (u) => (u * (u - 1)) / 2);
  const s = concordant - discordant;
  const tauB = s / Math.sqrt((n0 - n1) * (n0 - n2));
  const pAsymptotic = normalTwoSidedP(s / Math.sqrt(kendallVarianceS(n, xTies, yTies)));
  const hasTies = xTies.length > 0 || yTies.length > 0;
  const useExact = !hasTies && n <= 33;
  return {
    n,
    tauB,
    hasTies,
    concordant,
    discordant,
    pAsymptotic,
    pAuto: useExact ? kendallExactP(n, discordant) : pAsymptotic,
    pAutoMethod: useExact ? "exact" : "asymptotic",
  };
}

/**
 * Kendall tau-b alone, from one pass over the pairs (sign products and ties in x and in y): the
 * same coefficient as kendallTauB without its p-values, for the many small rankings of tau_R
 * (SafetyRepro §4). NaN when either ranking is all ties.
 */
export function kendallTauBCoefficient(x: ArrayLike<number>, y: ArrayLike<number>): number {
  assertPaired(x, y, 2);
  const n = x.length;
  let s = 0;
  let xTied = 0;
  let yTied = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const dx = Math.sign(x[i] - x[j]);
      const dy = Math.sign(y[i] - y[j]);
      s += dx * dy;
      if (dx === 0) xTied++;
      if (dy === 0) yTied++;
    }
  }
  const n0 = (n * (n - 1)) / 2;
  return s / Math.sqrt((n0 - xTied) * (n0 - yTied));
}

function countPairs(x: ArrayLike<number>, y: ArrayLike<number>): { concordant: number; discordant: number } {
  let concordant = 0;
  let discordant = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const sign = Math.sign(x[i] - x[j]) * Math.sign(y[i] - y[j]);
      if (sign > 0) concordant++;
      else if (sign < 0) discordant++;
    }
  }
  return { concordant, discordant };
}

/** Var(S) with tie corrections for both variables (Kendall 1970, eq. 4.3). */
export function kendallVarianceS(n: number, xTies: readonly number[], yTies: readonly number[]): number {
  const v0 = n * (n - 1) * (2 * n + 5);
  const vt = sumOver(xTies, (t) => t * (t - 1) * (2 * t + 5));
  const vu = sumOver(yTies, (u) => u * (u - 1) * (2 * u + 5));
  const t2 = sumOver(xTies, (t) => t * (t - 1) * (t - 2));
  const u2 = sumOver(yTies, (u) => u * (u - 1) * (u - 2));
  const t1 = sumOver(xTies, (t) => t * (t - 1));
  const u1 = sumOver(yTies, (u) => u * (u - 1));
  return (v0 - vt - vu) / 18 + (t2 * u2) / (9 * n * (n - 1) * (n - 2)) + (t1 * u1) / (2 * n * (n - 1));
}

/**
 * Exact two-sided p for tau without ties (scipy's _kendall_p_exact): the number of discordant
 * pairs is the number of inversions of a random permutation, whose distribution is built by the
 * Mahonian recursion; p = min(1, 2 P(D <= min(d, n0 - d))).
 */
export function kendallExactP(n: number, discordant: number): number {
  const n0 = (n * (n - 1)) / 2;
  const c = Math.min(discordant, n0 - discordant);
  if (n <= 2 || 4 * c === n * (n - 1)) return 1;
  // counts[k] = number of permutations of j elements with k inversions, for k <= c only.
  let counts = new Float64Array(c + 1);
  counts[0] = 1;
  for (let j = 2; j <= n; j++) {
    const next = new Float64Array(c + 1);
    let window = 0;
    for (let k = 0; k <= c; k++) {
      window += counts[k];
      if (k - j >= 0) window -= counts[k - j];
      next[k] = window;
    }
    counts = next;
  }
  let tail = 0;
  for (let k = 0; k <= c; k++) tail += counts[k];
  let factorial = 1;
  for (let j = 2; j <= n; j++) factorial *= j;
  return Math.min(1, (2 * tail) / factorial);
}

function sumOver(values: readonly number[], f: (v: number) => number): number {
  let total = 0;
  for (const v of values) total += f(v);
  return total;
}

function assertPaired(x: ArrayLike<number>, y: ArrayLike<number>, minimum: number): void {
  if (x.length !== y.length) throw new RangeError(`x and y differ in length: ${x.length} vs ${y.length}`);
  if (x.length < minimum) throw new RangeError(`need at least ${minimum} pairs, got ${x.length}`);
}
