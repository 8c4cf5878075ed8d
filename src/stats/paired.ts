// Paired binary outcomes: the same cases under condition A and condition B.
// Table convention (golden README): [[n11, n10], [n01, n00]], rows = outcome under A (1, 0),
// columns = outcome under B (1, 0); the discordant cells are b = n10 and c = n01.
import type { Interval } from "./descriptive.js";
import { binomialCdf, chiSquareSf } from "./distributions.js";
import { twoSidedCriticalValue } from "./proportions.js";

export type PairedTable = [[n11: number, n10: number], [n01: number, n00: number]];

/** Cross-tabulates two aligned 0/1 outcome vectors (index i of both = the same case). */
export function pairedTableFromOutcomes(outcomeA: ArrayLike<number>, outcomeB: ArrayLike<number>): PairedTable {
  if (outcomeA.length !== outcomeB.length) {
    throw new RangeError(`paired vectors differ in length: ${outcomeA.length} vs ${outcomeB.length}`);
  }
  const table: PairedTable = [
    [0, 0],
    [0, 0],
  ];
  for (let i = 0; i < outcomeA.length; i++) {
    const a = binaryValue(outcomeA[i]);
    const b = binaryValue(outcomeB[i]);
    table[1 - a][1 - b]++;
  }
  return table;
}

function binaryValue(value: number): 0 | 1 {
  if (value === 0 || value === 1) return value;
  throw new RangeError(`paired outcomes must be 0 or 1, got ${value}`);
}

function tableTotal(table: PairedTable): number {
  return table[0][0] + table[0][1] + table[1][0] + table[1][1];
}

// ---------------------------------------------------------------- paired difference

export interface PairedDifference {
  n: number;
  pA: number;
  pB: number;
  /** d = p_A - p_B = (n10 - n01)/n. */
  difference: number;
  /** sqrt([(n10 + n01)/n - d^2]/n) (Agresti 2002, sec. 10.1). */
  se: number;
  alpha: number;
  ci: Interval;
  /** The independent-samples SE, wrong for paired data; for comparison only. */
  seIndependent: number;
}

export function pairedProportionDifference(table: PairedTable, alpha = 0.05): PairedDifference {
  const n = tableTotal(table);
  if (!(n > 0)) throw new RangeError("paired table is empty");
  const [[n11, n10], [n01]] = table;
  const pA = (n11 + n10) / n;
  const pB = (n11 + n01) / n;
  const difference = (n10 - n01) / n;
  const se = Math.sqrt(((n10 + n01) / n - difference * difference) / n);
  const z = twoSidedCriticalValue(alpha);
  return {
    n,
    pA,
    pB,
    difference,
    se,
    alpha,
    ci: [difference - z * se, difference + z * se],
    seIndependent: Math.sqrt((pA * (1 - pA)) / n + (pB * (1 - pB)) / n),
  };
}

// ---------------------------------------------------------------- McNemar

export interface McNemarResult {
  b: number;
  c: number;
  /** Exact binomial test: statistic min(b, c), p = min(1, 2 P(K <= min(b,c)); K ~ Bin(b+c, 1/2)). */
  exact: { statistic: number; p: number };
  /** (|b - c| - 1)^2/(b + c), except 0 (p = 1) when b = c: R's mcnemar.test convention. */
  chiSquareCorrected: { statistic: number; p: number };
  /** (b - c)^2/(b + c). */
  chiSquareUncorrected: { statistic: number; p: number };
}

/** McNemar's test; undefined (throws) when there are no discordant pairs. */
export function mcnemarTest(table: PairedTable): McNemarResult {
  const b = table[0][1];
  const c = table[1][0];
  const discordant = b + c;
  if (discordant === 0) throw new RangeError("McNemar's test is undefined without discordant pairs (b + c = 0)");
  const smaller = Math.min(b, c);
  const corrected = b === c ? 0 : (Math.abs(b - c) - 1) ** 2 / discordant;
  const uncorrected = (b - c) ** 2 / discordant;
  return {
    b,
    c,
    exact: { statistic: smaller, p: Math.min(1, 2 * binomialCdf(smaller, discordant, 0.5)) },
    chiSquareCorrected: { statistic: corrected, p: chiSquareSf(corrected, 1) },
    chiSquareUncorrected: { statistic: uncorrected, p: chiSquareSf(uncorrected, 1) },
  };
}

// ---------------------------------------------------------------- flip rates

export interface FlipRates {
  n: number;
  /** Cases that went from 1 under A to 0 under B: n10/n. */
  lostRate: number;
  /** Cases that went from 0 under A to 1 under B: n01/n. */
  gainedRate: number;
  /** Share of cases whose outcome changed at all: (n10 + n01)/n. */
  churn: number;
  /** Net change B - A: (n01 - n10)/n = p_B - p_A (positive when B has more 1s). */
  net: number;
}

/** How many individual outcomes flip between A and B; churn can be large even when net is 0. */
export function flipRates(table: PairedTable): FlipRates {
  const n = tableTotal(table);
  if (!(n > 0)) throw new RangeError("paired table is empty");
  const n10 = table[0][1];
  const n01 = table[1][0];
  return { n, lostRate: n10 / n, gainedRate: n01 / n, churn: (n10 + n01) / n, net: (n01 - n10) / n };
}
