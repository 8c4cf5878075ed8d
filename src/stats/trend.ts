// Jonckheere-Terpstra test for an ordered alternative across k groups (Hollander & Wolfe):
// normal approximation with the tie-corrected variance and no continuity correction, plus an
// exact permutation p-value by enumerating every distinct assignment for small designs.
import { tieGroupSizes } from "./descriptive.js";
import { normalCdf, normalSf, normalTwoSidedP } from "./distributions.js";

export interface JonckheereResult {
  /** J = sum over ordered group pairs a < b of #(y_b > y_a) + 0.5 #(y_b = y_a). */
  statistic: number;
  mean: number;
  variance: number;
  varianceWithoutTieCorrection: number;
  z: number;
  /** Alternative: values increase with group order. */
  pIncreasing: number;
  pDecreasing: number;
  pTwoSided: number;
  groupSizes: number[];
  hasTies: boolean;
}

export function jonckheereTerpstra(groups: readonly (readonly number[])[]): JonckheereResult {
  if (groups.length < 2 || groups.some((g) => g.length === 0)) {
    throw new RangeError("Jonckheere-Terpstra needs at least two non-empty groups");
  }
  const sizes = groups.map((g) => g.length);
  const total = sizes.reduce((a, b) => a + b, 0);
  const ties = tieGroupSizes(groups.flat());
  const statistic = jonckheereStatisticByValue(groups);
  const mean = (total * total - sumOver(sizes, (m) => m * m)) / 4;
  const variance = tieCorrectedVariance(total, sizes, ties);
  const z = (statistic - mean) / Math.sqrt(variance);
  return {
    statistic,
    mean,
    variance,
    varianceWithoutTieCorrection: (total * total * (2 * total + 3) - sumOver(sizes, (m) => m * m * (2 * m + 3))) / 72,
    z,
    pIncreasing: normalSf(z),
    pDecreasing: normalCdf(z),
    pTwoSided: normalTwoSidedP(z),
    groupSizes: sizes,
    hasTies: ties.length > 0,
  };
}

export function jonckheereStatistic(groups: readonly (readonly number[])[]): number {
  let statistic = 0;
  for (let a = 0; a < groups.length; a++) {
    for (let b = a + 1; b < groups.length; b++) {
      for (const lower of groups[a]) {
        for (const upper of groups[b]) statistic += upper > lower ? 1 : upper === lower ? 0.5 : 0;
      }
    }
  }
  return statistic;
}

/**
 * The same J from the groups' counts per distinct value, O(N log N + k^2 D) for D distinct
 * values instead of O(N^2): a large tied design (0/1 outcomes of thousands of trials) in
 * milliseconds. For each value v, a later group's count at v meets an earlier group's count
 * below v (each a win) and at v (each a tie, 1/2).
 */
export function jonckheereStatisticByValue(groups: readonly (readonly number[])[]): number {
  const values = [...new Set(groups.flat())].sort((a, b) => a - b);
  const index = new Map(values.map((v, i) => [v, i]));
  const counts = groups.map((g) => {
    const c = new Float64Array(values.length);
    for (const v of g) c[index.get(v)!]++;
    return c;
  });
  let statistic = 0;
  for (let a = 0; a < groups.length; a++) {
    let below = 0;
    for (let v = 0; v < values.length; v++) {
      for (let b = a + 1; b < groups.length; b++) statistic += counts[b][v] * (below + 0.5 * counts[a][v]);
      below += counts[a][v];
    }
  }
  return statistic;
}

function tieCorrectedVariance(total: number, sizes: readonly number[], ties: readonly number[]): number {
  const n = total;
  const first =
    (n * (n - 1) * (2 * n + 5) -
      sumOver(sizes, (m) => m * (m - 1) * (2 * m + 5)) -
      sumOver(ties, (t) => t * (t - 1) * (2 * t + 5))) /
    72;
  const second =
    (sumOver(sizes, (m) => m * (m - 1) * (m - 2)) * sumOver(ties, (t) => t * (t - 1) * (t - 2))) /
    (36 * n * (n - 1) * (n - 2));
  const third = (sumOver(sizes, (m) => m * (m - 1)) * sumOver(ties, (t) => t * (t - 1))) / (8 * n * (n - 1));
  return first + second + third;
}

export interface JonckheereExact {
  assignments: number;
  pIncreasing: number;
  pDecreasing: number;
  /** min(1, 2 min(pIncreasing, pDecreasing)). */
  pTwoSided: number;
}

/**
 * Exact permutation p-values: every distinct assignment of the pooled values to groups of the
 * given sizes is equally likely under H0. Refuses designs with more than `maxAssignments`.
 */
export function jonckheereExact(groups: readonly (readonly number[])[], maxAssignments = 2_000_000): JonckheereExact {
  const sizes = groups.map((g) => g.length);
  const assignments = multinomialCount(sizes);
  if (assignments > maxAssignments) {
    throw new RangeError(`${assignments} assignments exceed the enumeration limit ${maxAssignments}`);
  }
  const pooled = groups.flat();
  const observed = jonckheereStatistic(groups);
  let atLeast = 0;
  let atMost = 0;
  // J is a multiple of 0.5, so a small slack makes the equality test exact.
  forEachAssignment(pooled, sizes, (permuted) => {
    const j = jonckheereStatistic(permuted);
    if (j >= observed - 1e-9) atLeast++;
    if (j <= observed + 1e-9) atMost++;
  });
  const pIncreasing = atLeast / assignments;
  const pDecreasing = atMost / assignments;
  return { assignments, pIncreasing, pDecreasing, pTwoSided: Math.min(1, 2 * Math.min(pIncreasing, pDecreasing)) };
}

function multinomialCount(sizes: readonly number[]): number {
  let count = 1;
  let placed = 0;
  for (const size of sizes) {
    for (let i = 1; i <= size; i++) count = (count * (placed + i)) / i;
    placed += size;
  }
  return Math.round(count);
}

/** Visits each way to split positions 0..N-1 into groups of `sizes` (as sets, order ignored). */
function forEachAssignment(
  pooled: readonly number[],
  sizes: readonly number[],
  visit: (groups: number[][]) => void,
): void {
  const groups: number[][] = sizes.map(() => []);
  const remaining = [...sizes];
  const place = (position: number): void => {
    if (position === pooled.length) {
      visit(groups);
      return;
    }
    for (let g = 0; g < sizes.length; g++) {
      if (remaining[g] === 0) continue;
      remaining[g]--;
      groups[g].push(pooled[position]);
      place(position + 1);
      groups[g].pop();
      remaining[g]++;
    }
  };
  place(0);
}

function sumOver(values: readonly number[], f: (v: number) => number): number {
  let total = 0;
  for (const v of values) total += f(v);
  return total;
}
