// Small dense linear algebra on row-major Float64Array matrices (k x k, k up to a few hundred).
// Model fits factor Gram-type matrices (X'WX) by Cholesky; the rank-revealing step that finds
// aliased design columns is a Householder QR with R's limited column pivoting (`pivotedQr`).
//
// Hand-written rather than ml-matrix because it is faster on these sizes: `npm run bench:stats
// -- --linalg` (2026-11-26, shared 2-core machine, medians of 7 interleaved rounds, ml-matrix
// timed with the conversion to and from Float64Array the fits would need) gave, per call,
// factor + solve 7 vs 95 µs at k = 8, 15 vs 1,153 µs at k = 36 (the primary logit), 2.0 vs
// 9.5 ms at k = 100; inverse 19 vs 84 µs, 0.9 vs 2.4 ms, 5.2 vs 14.0 ms. See docs/PERFORMANCE.md.

/**
 * A matrix that had to be positive definite is not (a singular information matrix, a degenerate
 * covariance block). Callers catch this type, and only where a singular matrix is an expected
 * outcome of the data, so any other error still surfaces.
 */
export class NotPositiveDefiniteError extends Error {
  constructor(
    readonly pivot: number,
    readonly value: number,
  ) {
    super(`matrix is not positive definite (pivot ${pivot} = ${value})`);
    this.name = "NotPositiveDefiniteError";
  }
}

/** Runs `f`, returning undefined when it throws NotPositiveDefiniteError (any other error is rethrown). */
export function unlessSingular<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (error) {
    if (error instanceof NotPositiveDefiniteError) return undefined;
    throw error;
  }
}

/** Lower Cholesky factor L of a symmetric positive-definite matrix (only the lower triangle is read). */
export function cholesky(a: Float64Array, k: number): Float64Array {
  const l = new Float64Array(k * k);
  for (let j = 0; j < k; j++) {
    let d = a[j * k + j];
    for (let m = 0; m < j; m++) d -= l[j * k + m] * l[j * k + m];
    if (!(d > 0)) throw new NotPositiveDefiniteError(j, d);
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

/** R's lm.fit tolerance: a column whose residual norm falls below tol x its own norm is aliased. */
export const QR_TOLERANCE = 1e-7;

export interface PivotedQr {
  rank: number;
  /** Original column index at each position: the first `rank` are kept (in their order), the rest aliased. */
  pivot: Int32Array;
  /** The n x k row-major factor: R in the upper triangle (columns in pivot order). */
  r: Float64Array;
}

/**
 * Householder QR with R's limited column pivoting (LINPACK dqrdc2, as lm.fit and glm.fit use):
 * columns are taken in order, and one whose norm, after projecting out the columns kept before
 * it, is below `tolerance` times its original norm is moved to the end, aliased. So an aliased
 * column is always a combination of earlier columns, as R reports it (coefficient NA).
 * `x` (n x k, row-major) is not modified.
 */
export function pivotedQr(x: Float64Array, n: number, k: number, tolerance = QR_TOLERANCE): PivotedQr {
  const a = Float64Array.from(x);
  const pivot = Int32Array.from({ length: k }, (_, j) => j);
  const columnNorm = (j: number, from: number) => {
    let s = 0;
    for (let i = from; i < n; i++) s += a[i * k + j] ** 2;
    return Math.sqrt(s);
  };
  const original = Float64Array.from({ length: k }, (_, j) => columnNorm(j, 0) || 1);
  let end = k; // columns [end, k) are aliased
  let l = 0;
  while (l < Math.min(end, n)) {
    if (columnNorm(l, l) < tolerance * original[l]) {
      moveToEnd(a, n, k, l, pivot, original);
      end--;
      continue;
    }
    householder(a, n, k, l);
    l++;
  }
  return { rank: l, pivot, r: a };
}

/** Moves column j to the last position, shifting the columns after it left (values and bookkeeping). */
function moveToEnd(a: Float64Array, n: number, k: number, j: number, pivot: Int32Array, norms: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const row = i * k;
    const v = a[row + j];
    a.copyWithin(row + j, row + j + 1, row + k);
    a[row + k - 1] = v;
  }
  const p = pivot[j];
  pivot.copyWithin(j, j + 1);
  pivot[k - 1] = p;
  const w = norms[j];
  norms.copyWithin(j, j + 1);
  norms[k - 1] = w;
}

/** One Householder reflection zeroing column l below the diagonal, applied to every column after it. */
function householder(a: Float64Array, n: number, k: number, l: number): void {
  let norm = 0;
  for (let i = l; i < n; i++) norm += a[i * k + l] ** 2;
  norm = Math.sqrt(norm);
  const alpha = a[l * k + l] > 0 ? -norm : norm;
  const v = new Float64Array(n - l);
  for (let i = l; i < n; i++) v[i - l] = a[i * k + l];
  v[0] -= alpha;
  let vv = 0;
  for (let i = 0; i < v.length; i++) vv += v[i] * v[i];
  for (let j = l; j < k; j++) {
    let dot = 0;
    for (let i = l; i < n; i++) dot += v[i - l] * a[i * k + j];
    if (vv === 0) continue;
    const f = (2 * dot) / vv;
    for (let i = l; i < n; i++) a[i * k + j] -= f * v[i - l];
  }
}

/**
 * Solves R11 c = R12[:, j] for the j-th pivoted column of a pivoted QR (j >= rank): the
 * coefficients expressing an aliased column in the kept ones (in pivot order).
 */
export function aliasCoefficients(qr: PivotedQr, k: number, j: number): Float64Array {
  const { r, rank } = qr;
  const c = new Float64Array(rank);
  for (let i = rank - 1; i >= 0; i--) {
    let s = r[i * k + j];
    for (let m = i + 1; m < rank; m++) s -= r[i * k + m] * c[m];
    c[i] = s / r[i * k + i];
  }
  return c;
}

/** Relative Cholesky pivot below which a column of a Gram or covariance matrix depends on the earlier ones. */
export const PIVOT_TOLERANCE = 1e-10;

/**
 * The columns of a symmetric positive semi-definite matrix kept by a Cholesky taken in column
 * order that skips a column whose pivot is below `tolerance` times its diagonal (it lies in the
 * span of the columns kept before it): a maximal independent subset, earliest columns first.
 */
export function independentColumns(a: Float64Array, m: number, tolerance = PIVOT_TOLERANCE): number[] {
  const l = new Float64Array(m * m);
  const kept: number[] = [];
  for (let j = 0; j < m; j++) {
    let d = a[j * m + j];
    for (const q of kept) d -= l[j * m + q] ** 2;
    if (!(d > tolerance * a[j * m + j])) continue;
    const ljj = Math.sqrt(d);
    l[j * m + j] = ljj;
    for (let i = j + 1; i < m; i++) {
      let s = a[i * m + j];
      for (const q of kept) s -= l[i * m + q] * l[j * m + q];
      l[i * m + j] = s / ljj;
    }
    kept.push(j);
  }
  return kept;
}
