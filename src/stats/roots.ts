// Bracketing root finding for monotone one-dimensional problems (quantiles, MDE solving).

/**
 * Bisection on a sign change of f over [lo, hi]; stops when the bracket is narrower than `tol`
 * or cannot be split further in double precision.
 */
export function bisect(f: (x: number) => number, lo: number, hi: number, tol: number): number {
  let fLo = f(lo);
  for (let i = 0; i < 2000 && hi - lo > tol; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid === lo || mid === hi) break;
    const fMid = f(mid);
    if (fMid === 0) return mid;
    if (fMid < 0 === fLo < 0) {
      lo = mid;
      fLo = fMid;
    } else {
      hi = mid;
    }
  }
  return lo + (hi - lo) / 2;
}

/** Root of f in [lo, hi] if f changes sign there, else null. */
export function bracketedRoot(f: (x: number) => number, lo: number, hi: number, tol = 1e-15): number | null {
  const fLo = f(lo);
  const fHi = f(hi);
  if (fLo === 0) return lo;
  if (fHi === 0) return hi;
  if (fLo < 0 === fHi < 0) return null;
  return bisect(f, lo, hi, tol);
}
