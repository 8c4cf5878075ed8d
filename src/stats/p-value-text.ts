/**
 * How a p value reads wherever Parallax prints one (terminal, scorecard.md, the HTML report, the
 * notes stored with a result). Upper tails are computed directly (distributions.ts), so a p keeps
 * its relative precision down to about 1e-300 and then underflows to 0; a printed p is never 0:
 * below the floor it reads as the bound, "< 1e-300". The record keeps the number as computed.
 */

/** The smallest p printed as a number; below it (0 included) a p prints as "< 1e-300". */
export const P_FLOOR = 1e-300;

/** A p value: three decimals, one significant digit in exponent form below 0.001, "< 1e-300" below the floor. */
export function pValue(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  if (value < P_FLOOR) return `< ${P_FLOOR.toExponential(0)}`;
  return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
}

/** "p = 0.012", "p = 3.4e-5", or "p < 1e-300" (`label` names the p: "p(median)", "adjusted p"). */
export function pEquals(value: number | null | undefined, label = "p"): string {
  const text = pValue(value);
  return text.startsWith("<") ? `${label} ${text}` : `${label} = ${text}`;
}
