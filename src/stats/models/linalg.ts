// Small dense linear algebra on row-major Float64Array matrices (k x k, k up to a few hundred).
// Model fits only ever factor Gram-type matrices (X'WX), so Cholesky is all that is needed.
//
// Hand-written rather than ml-matrix because it is faster on these sizes: `npm run bench:stats
// -- --linalg` (2026-11-26, shared 2-core machine, medians of 7 interleaved rounds, ml-matrix
// timed with the conversion to and from Float64Array the fits would need) gave, per call,
// factor + solve 7 vs 95 µs at k = 8, 15 vs 1,153 µs at k = 36 (the primary logit), 2.0 vs
// 9.5 ms at k = 100; inverse 19 vs 84 µs, 0.9 vs 2.4 ms, 5.2 vs 14.0 ms. See docs/PERFORMANCE.md.

/** Lower Cholesky factor L of a symmetric positive-definite matrix (only the lower triangle is read). */
export function cholesky(a: Float64Array, k: number): Float64Array {
  const l = new Float64Array(k * k);
  for (let j = 0; j < k; j++) {
    let d = a[j * k + j];
    for (let m = 0; m < j; m++) d -= l[j * k + m] * l[j * k + m];
    if (!(d > 0)) throw new Error(`matrix is not positive definite (pivot ${j} = ${d})`);
    const ljj = Math.sqrt(d);
    l[j * k + j] = ljj;
    for (let i = j + 1; i < k; i++) {
      let s = a[i * k + j];
      for (let m = 0; m < j; m++) s -= l[i * k + m] * l[j * k + m];
      l[i * k + j] = s / ljj;
    }
  }
  return l;
}

/** Solves (L L') x = b given the Cholesky factor L. */
export function choleskySolve(l: Float64Array, k: number, b: ArrayLike<number>): Float64Array {
  const x = Float64Array.from(b);
  for (let i = 0; i < k; i++) {
    let s = x[i];
    for (let m = 0; m < i; m++) s -= l[i * k + m] * x[m];
    x[i] = s / l[i * k + i];
  }
  for (let i = k - 1; i >= 0; i--) {
    let s = x[i];
    for (let m = i + 1; m < k; m++) s -= l[m * k + i] * x[m];
    x[i] = s / l[i * k + i];
  }
  return x;
}

/** Inverse of a symmetric positive-definite matrix (symmetric result). */
export function invertSpd(a: Float64Array, k: number): Float64Array {
  const l = cholesky(a, k);
  const inv = new Float64Array(k * k);
  const e = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    e.fill(0);
    e[j] = 1;
    const col = choleskySolve(l, k, e);
    for (let i = 0; i < k; i++) inv[i * k + j] = col[i];
  }
  symmetrize(inv, k);
  return inv;
}

/** Copies the average of a[i][j] and a[j][i] into both (removes rounding asymmetry). */
export function symmetrize(a: Float64Array, k: number): void {
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < i; j++) {
      const v = 0.5 * (a[i * k + j] + a[j * k + i]);
      a[i * k + j] = v;
      a[j * k + i] = v;
    }
  }
}

/** Mirrors the upper triangle into the lower one. */
export function fillLowerFromUpper(a: Float64Array, k: number): void {
  for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) a[j * k + i] = a[i * k + j];
}

/** A B for k x k matrices. */
export function multiply(a: Float64Array, b: Float64Array, k: number): Float64Array {
  const c = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let m = 0; m < k; m++) {
      const aim = a[i * k + m];
      if (aim === 0) continue;
      for (let j = 0; j < k; j++) c[i * k + j] += aim * b[m * k + j];
    }
  }
  return c;
}

/** The sandwich B M B for symmetric k x k B and M. */
export function sandwich(bread: Float64Array, meat: Float64Array, k: number): Float64Array {
  const v = multiply(multiply(bread, meat, k), bread, k);
  symmetrize(v, k);
  return v;
}

/** The sub-matrix a[idx, idx]. */
export function subMatrix(a: Float64Array, k: number, idx: readonly number[]): Float64Array {
  const m = idx.length;
  const out = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) out[i * m + j] = a[idx[i] * k + idx[j]];
  return out;
}

/** b' A^-1 b for symmetric positive-definite A. */
export function inverseQuadraticForm(a: Float64Array, k: number, b: ArrayLike<number>): number {
  const x = choleskySolve(cholesky(a, k), k, b);
  let s = 0;
  for (let i = 0; i < k; i++) s += b[i] * x[i];
  return s;
}
