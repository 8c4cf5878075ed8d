// Private distribution tails for the model layer. Upper tails are computed directly (erfc, upper
// regularized incomplete gamma/beta), never as 1 - cdf, so tiny p-values keep relative precision.
import betainc from "@stdlib/math-base-special-betainc";
import gammainc from "@stdlib/math-base-special-gammainc";
import normal from "@stdlib/stats-base-dists-normal";

/** z_(0.975), the two-sided 95% normal quantile used for Wald intervals. */
export const Z975 = 1.959963984540054;

/** Phi(x). */
export function normalCdf(x: number): number {
  return normal.cdf(x, 0, 1);
}

/** 1 - Phi(x), as Phi(-x) (stdlib evaluates it with erfc, exact in the tail). */
export function normalSf(x: number): number {
  return normal.cdf(-x, 0, 1);
}

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

export function normalPdf(x: number): number {
  return INV_SQRT_2PI * Math.exp(-0.5 * x * x);
}

/** 2 P(Z > |z|). */
export function twoSidedNormalP(z: number): number {
  return Math.min(1, 2 * normal.cdf(-Math.abs(z), 0, 1));
}

/** Phi^-1(p) (stdlib; accurate to ~1e-15 in the central region used for interval levels). */
export function normalQuantile(p: number): number {
  return normal.quantile(p, 0, 1);
}

/** P(X > x) for X ~ chi-square(df). */
export function chiSquareSf(x: number, df: number): number {
  if (!(x > 0)) return 1;
  return gammainc(x / 2, df / 2, true, true);
}

/** P(F > f) for F ~ F(df1, df2), via I_{df2/(df2 + df1 f)}(df2/2, df1/2). */
export function fSf(f: number, df1: number, df2: number): number {
  if (!(f > 0)) return 1;
  return betainc(df2 / (df2 + df1 * f), df2 / 2, df1 / 2, true, false);
}
