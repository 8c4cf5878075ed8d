// Distribution functions for p-values and quantiles. Upper tails are computed directly (by
// symmetry or with the upper regularized incomplete gamma/beta), never as 1 - cdf, so tiny
// p-values keep their relative precision. Quantiles start from @stdlib and are polished with
// Newton steps on the tail that is smaller, which brings them to ~1e-15 relative accuracy.
import betainc from "@stdlib/math-base-special-betainc";
import gammainc from "@stdlib/math-base-special-gammainc";
import binomial from "@stdlib/stats-base-dists-binomial";
import chisquare from "@stdlib/stats-base-dists-chisquare";
import fdist from "@stdlib/stats-base-dists-f";
import normal from "@stdlib/stats-base-dists-normal";
import studentT from "@stdlib/stats-base-dists-t";
import { bisect } from "./roots.js";

// ---------------------------------------------------------------- normal

/** Phi(x): standard normal lower tail. */
export function normalCdf(x: number): number {
  return normal.cdf(x, 0, 1);
}

/** 1 - Phi(x), computed as Phi(-x) so it stays relatively exact far in the tail. */
export function normalSf(x: number): number {
  return normal.cdf(-x, 0, 1);
}

export function normalPdf(x: number): number {
  return normal.pdf(x, 0, 1);
}

/** Two-sided p-value of a standard normal statistic: 2 * P(Z > |z|). */
export function normalTwoSidedP(z: number): number {
  return Math.min(1, 2 * normalSf(Math.abs(z)));
}

/** Phi^-1(p). Accurate from p = 1e-300 up to 1 - 1e-16. */
export function normalQuantile(p: number): number {
  assertProbability(p);
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  // 1 - p is exact for p >= 0.5 (Sterbenz), so the upper half maps onto the lower one.
  return p > 0.5 ? -normalLowerQuantile(1 - p) : normalLowerQuantile(p);
}

/** Quantile for p < 0.5 by Newton's method on log Phi, which is well conditioned in the tail. */
function normalLowerQuantile(p: number): number {
  const logP = Math.log(p);
  // erfinv(2p - 1) loses all precision for tiny p; there the Mills-ratio asymptote is a good start.
  let x = p > 1e-8 ? normal.quantile(p, 0, 1) : -Math.sqrt(-2 * logP - Math.log(-2 * logP) - Math.log(2 * Math.PI));
  for (let i = 0; i < 100; i++) {
    const logCdf = normal.logcdf(x, 0, 1);
    const step = (logCdf - logP) / Math.exp(normal.logpdf(x, 0, 1) - logCdf);
    x -= step;
    if (Math.abs(step) <= 1e-15 * Math.abs(x)) break;
  }
  return x;
}

// ---------------------------------------------------------------- Student t

export function tCdf(x: number, df: number): number {
  return studentT.cdf(x, df);
}

/** P(T > x), by symmetry. */
export function tSf(x: number, df: number): number {
  return studentT.cdf(-x, df);
}

export function tPdf(x: number, df: number): number {
  return studentT.pdf(x, df);
}

/** Two-sided p-value of a t statistic. */
export function tTwoSidedP(t: number, df: number): number {
  return Math.min(1, 2 * tSf(Math.abs(t), df));
}

export function tQuantile(p: number, df: number): number {
  assertProbability(p);
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  if (p > 0.5) return -tQuantile(1 - p, df);
  return polishLowerTail(
    studentT.quantile(p, df),
    p,
    (x) => tCdf(x, df),
    (x) => tPdf(x, df),
  );
}

// ---------------------------------------------------------------- chi-square

export function chiSquareCdf(x: number, df: number): number {
  if (x <= 0) return 0;
  return gammainc(x / 2, df / 2, true, false);
}

/** P(X > x) from the upper regularized incomplete gamma function. */
export function chiSquareSf(x: number, df: number): number {
  if (x <= 0) return 1;
  return gammainc(x / 2, df / 2, true, true);
}

export function chiSquarePdf(x: number, df: number): number {
  return chisquare.pdf(x, df);
}

export function chiSquareQuantile(p: number, df: number): number {
  assertProbability(p);
  if (p === 0) return 0;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const start = chisquare.quantile(p, df);
  const density = (x: number) => chiSquarePdf(x, df);
  return p <= 0.5
    ? polishLowerTail(start, p, (x) => chiSquareCdf(x, df), density)
    : polishUpperTail(start, 1 - p, (x) => chiSquareSf(x, df), density);
}

// ---------------------------------------------------------------- F

export function fCdf(x: number, df1: number, df2: number): number {
  if (x <= 0) return 0;
  return betainc((df1 * x) / (df1 * x + df2), df1 / 2, df2 / 2, true, false);
}

/** P(F > x) = I_{df2/(df2 + df1 x)}(df2/2, df1/2), without forming 1 - cdf. */
export function fSf(x: number, df1: number, df2: number): number {
  if (x <= 0) return 1;
  return betainc(df2 / (df2 + df1 * x), df2 / 2, df1 / 2, true, false);
}

export function fQuantile(p: number, df1: number, df2: number): number {
  assertProbability(p);
  const start = fdist.quantile(p, df1, df2);
  const density = (x: number) => fdist.pdf(x, df1, df2);
  if (p === 0 || p === 1) return start;
  return p <= 0.5
    ? polishLowerTail(start, p, (x) => fCdf(x, df1, df2), density)
    : polishUpperTail(start, 1 - p, (x) => fSf(x, df1, df2), density);
}

// ---------------------------------------------------------------- binomial

/** P(K <= k) for K ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  const kk = Math.floor(k);
  if (kk < 0) return 0;
  if (kk >= n) return 1;
  // P(K <= k) = I_{1-p}(n - k, k + 1), written as the upper tail of I_p(k + 1, n - k).
  return betainc(p, kk + 1, n - kk, true, true);
}

/** P(K > k) = I_p(k + 1, n - k), computed directly. */
export function binomialSf(k: number, n: number, p: number): number {
  const kk = Math.floor(k);
  if (kk < 0) return 1;
  if (kk >= n) return 0;
  return betainc(p, kk + 1, n - kk, true, false);
}

export function binomialPmf(k: number, n: number, p: number): number {
  return binomial.pmf(k, n, p);
}

/** Smallest k with P(K <= k) >= q. */
export function binomialQuantile(q: number, n: number, p: number): number {
  assertProbability(q);
  return binomial.quantile(q, n, p);
}

// ---------------------------------------------------------------- beta (for exact binomial CIs)

/** Quantile of Beta(a, b): the x with I_x(a, b) = q, by bisection to the last bit. */
export function betaQuantile(q: number, a: number, b: number): number {
  assertProbability(q);
  if (q === 0) return 0;
  if (q === 1) return 1;
  const f = (x: number) => betainc(x, a, b, true, false) - q;
  return bisect(f, 0, 1, 1e-16);
}

// ---------------------------------------------------------------- helpers

function assertProbability(p: number): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`probability must be in [0, 1], got ${p}`);
}

/** Newton refinement of x with cdf(x) = p, for p in the lower half. */
function polishLowerTail(start: number, p: number, cdf: (x: number) => number, pdf: (x: number) => number): number {
  return newton(start, (x) => (cdf(x) - p) / pdf(x));
}

/** Newton refinement of x with sf(x) = q (q = 1 - p, exact for p >= 0.5). */
function polishUpperTail(start: number, q: number, sf: (x: number) => number, pdf: (x: number) => number): number {
  return newton(start, (x) => (q - sf(x)) / pdf(x));
}

function newton(start: number, step: (x: number) => number): number {
  let x = start;
  for (let i = 0; i < 50; i++) {
    const dx = step(x);
    if (!Number.isFinite(dx)) return x;
    x -= dx;
    if (Math.abs(dx) <= 1e-15 * Math.abs(x)) break;
  }
  return x;
}
