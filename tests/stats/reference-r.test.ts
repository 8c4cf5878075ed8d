/**
 * Reference values for McNemar's test (corrected chi-square and exact binomial) and the Wilson
 * and Clopper-Pearson intervals, each beside the R call it equals and what R prints for it.
 *
 * R is not run by the tests. The full-precision values were computed independently of Parallax's
 * code, with Python 3 and scipy 1.17: the statistics from their definitions in R's source
 * (mcnemar.test: (|b - c| - 1)^2 / (b + c), 0 when b = c; prop.test(correct = FALSE): the Wilson
 * score interval), chi-square tails with scipy.stats.chi2.sf, exact binomial p-values as
 * fractions (2 * sum_{i <= min(b, c)} C(b + c, i) / 2^(b + c), capped at 1) and cross-checked with
 * scipy.stats.binomtest, intervals with binomtest(x, n).proportion_ci(method = "wilson" / "exact").
 * The printed R output quoted beside each is that value at R's print precision.
 *
 * Table convention: [[n11, n10], [n01, n00]]; b = n10, c = n01. In R the same table is
 * matrix(c(n11, n01, n10, n00), nrow = 2) (column-major), whose [1, 2] is b and [2, 1] is c.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mcnemarTest, type PairedTable } from "../../src/stats/paired.js";
import { proportionCi } from "../../src/stats/proportions.js";

function close(actual: number, expected: number, label: string, tolerance = 1e-10): void {
  assert.ok(
    Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)),
    `${label}: ${actual} vs the reference ${expected}`,
  );
}

interface McNemarReference {
  table: PairedTable;
  /** mcnemar.test(x)$statistic and $p.value (correct = TRUE, R's default). */
  corrected: [statistic: number, p: number];
  /** mcnemar.test(x, correct = FALSE). */
  uncorrected: [statistic: number, p: number];
  /** binom.test(min(b, c), b + c, 0.5)$p.value: the exact McNemar test. */
  exactP: number;
}

const MCNEMAR: McNemarReference[] = [
  {
    // x <- matrix(c(40, 3, 12, 45), nrow = 2)
    // mcnemar.test(x):                 McNemar's chi-squared = 4.2667, df = 1, p-value = 0.03887
    // mcnemar.test(x, correct = FALSE): McNemar's chi-squared = 5.4, df = 1, p-value = 0.02014
    // binom.test(3, 15, 0.5):           number of successes = 3, number of trials = 15, p-value = 0.03516
    table: [
      [40, 12],
      [3, 45],
    ],
    corrected: [4.266666666666667, 0.03886710381241731],
    uncorrected: [5.4, 0.02013675155034633],
    exactP: 0.03515625,
  },
  {
    // x <- matrix(c(60, 14, 25, 30), nrow = 2)
    // mcnemar.test(x):                 McNemar's chi-squared = 2.5641, df = 1, p-value = 0.1093
    // mcnemar.test(x, correct = FALSE): McNemar's chi-squared = 3.1026, df = 1, p-value = 0.07817
    // binom.test(14, 39, 0.5):          p-value = 0.1081
    table: [
      [60, 25],
      [14, 30],
    ],
    corrected: [2.5641025641025643, 0.10931457620866644],
    uncorrected: [3.1025641025641026, 0.0781690858242831],
    exactP: 0.10812902140605729,
  },
  {
    // x <- matrix(c(10, 7, 1, 2), nrow = 2)
    // mcnemar.test(x):                 McNemar's chi-squared = 3.125, df = 1, p-value = 0.0771
    // mcnemar.test(x, correct = FALSE): McNemar's chi-squared = 4.5, df = 1, p-value = 0.03389
    // binom.test(1, 8, 0.5):            p-value = 0.07031
    table: [
      [10, 1],
      [7, 2],
    ],
    corrected: [3.125, 0.07709987174354202],
    uncorrected: [4.5, 0.033894853524689295],
    exactP: 0.0703125,
  },
  {
    // x <- matrix(c(100, 50, 30, 120), nrow = 2)
    // mcnemar.test(x):                 McNemar's chi-squared = 4.5125, df = 1, p-value = 0.03365
    // mcnemar.test(x, correct = FALSE): McNemar's chi-squared = 5, df = 1, p-value = 0.02535
    // binom.test(30, 80, 0.5):          p-value = 0.03299
    table: [
      [100, 30],
      [50, 120],
    ],
    corrected: [4.5125, 0.03364802587476163],
    uncorrected: [5, 0.025347318677468325],
    exactP: 0.03299261842647618,
  },
  {
    // b = c: R drops the continuity correction (its YATES is 0 when x equals t(x)).
    // x <- matrix(c(20, 5, 5, 20), nrow = 2)
    // mcnemar.test(x):                 McNemar's chi-squared = 0, df = 1, p-value = 1
    // binom.test(5, 10, 0.5):           p-value = 1
    table: [
      [20, 5],
      [5, 20],
    ],
    corrected: [0, 1],
    uncorrected: [0, 1],
    exactP: 1,
  },
];

describe("McNemar against R's mcnemar.test and binom.test", () => {
  for (const ref of MCNEMAR) {
    const [[n11, b], [c, n00]] = ref.table;
    it(`mcnemar.test(matrix(c(${n11}, ${c}, ${b}, ${n00}), nrow = 2)): b = ${b}, c = ${c}`, () => {
      const m = mcnemarTest(ref.table);
      assert.equal(m.b, b);
      assert.equal(m.c, c);
      close(m.chiSquareCorrected.statistic, ref.corrected[0], "corrected statistic (|b - c| - 1)^2/(b + c)");
      close(m.chiSquareCorrected.p, ref.corrected[1], "corrected p");
      close(m.chiSquareUncorrected.statistic, ref.uncorrected[0], "uncorrected statistic");
      close(m.chiSquareUncorrected.p, ref.uncorrected[1], "uncorrected p");
      close(m.exact.p, ref.exactP, `exact p = binom.test(${Math.min(b, c)}, ${b + c}, 0.5)$p.value`);
    });
  }
});

interface IntervalReference {
  x: number;
  n: number;
  level: number;
  interval: [number, number];
}

// prop.test(x, n, conf.level = level, correct = FALSE)$conf.int: the Wilson score interval.
const WILSON: IntervalReference[] = [
  // prop.test(7, 20, correct = FALSE)$conf.int                   -> 0.1811918 0.5671457
  { x: 7, n: 20, level: 0.95, interval: [0.1811918241010821, 0.5671457233147637] },
  // prop.test(0, 15, correct = FALSE)$conf.int                   -> 0.0000000 0.2038833
  { x: 0, n: 15, level: 0.95, interval: [0, 0.20388330103584862] },
  // prop.test(50, 50, correct = FALSE)$conf.int                  -> 0.9286524 1.0000000
  { x: 50, n: 50, level: 0.95, interval: [0.9286524008666412, 1] },
  // prop.test(33, 120, correct = FALSE)$conf.int                 -> 0.2030290 0.3609297
  { x: 33, n: 120, level: 0.95, interval: [0.20302896661264846, 0.36092965827576806] },
  // prop.test(7, 20, conf.level = 0.9, correct = FALSE)$conf.int  -> 0.2022600 0.5334873
  { x: 7, n: 20, level: 0.9, interval: [0.20226004005676104, 0.5334873111515284] },
  // prop.test(1, 3, conf.level = 0.99, correct = FALSE)$conf.int  -> 0.04042663 0.85578398
  { x: 1, n: 3, level: 0.99, interval: [0.04042662929608476, 0.855783984952333] },
];

// binom.test(x, n, conf.level = level)$conf.int: the Clopper-Pearson interval.
const CLOPPER_PEARSON: IntervalReference[] = [
  // binom.test(7, 20)$conf.int   -> 0.1539092 0.5921885
  { x: 7, n: 20, level: 0.95, interval: [0.1539092047845412, 0.5921885345328283] },
  // binom.test(0, 15)$conf.int   -> 0.0000000 0.2180194
  { x: 0, n: 15, level: 0.95, interval: [0, 0.2180193609108388] },
  // binom.test(33, 120)$conf.int -> 0.1974551 0.3639841
  { x: 33, n: 120, level: 0.95, interval: [0.1974551278260819, 0.363984073599464] },
];

describe("proportion intervals against R", () => {
  for (const ref of WILSON)
    it(`Wilson = prop.test(${ref.x}, ${ref.n}, conf.level = ${ref.level}, correct = FALSE)$conf.int`, () => {
      const [lo, hi] = proportionCi(ref.x, ref.n, 1 - ref.level, "wilson");
      close(lo, ref.interval[0], `lower bound at ${ref.level}`);
      close(hi, ref.interval[1], `upper bound at ${ref.level}`);
    });
  for (const ref of CLOPPER_PEARSON)
    it(`Clopper-Pearson = binom.test(${ref.x}, ${ref.n}, conf.level = ${ref.level})$conf.int`, () => {
      const [lo, hi] = proportionCi(ref.x, ref.n, 1 - ref.level, "clopper-pearson");
      close(lo, ref.interval[0], `lower bound at ${ref.level}`, 1e-8);
      close(hi, ref.interval[1], `upper bound at ${ref.level}`, 1e-8);
    });
});
