// Least-squares isotonic regression by the pool-adjacent-violators algorithm (PAVA).
// Values are fitted in the given order (positions 1..n); pooled blocks take their weighted mean.

export interface IsotonicOptions {
  /** Non-decreasing (default) or non-increasing fit. */
  increasing?: boolean;
  /** Positive weights; the fit minimises sum w_i (y_i - f_i)^2. Default all 1. */
  weights?: ArrayLike<number>;
}

export function isotonicRegression(y: ArrayLike<number>, options: IsotonicOptions = {}): Float64Array {
  const n = y.length;
  const weights = options.weights ?? new Float64Array(n).fill(1);
  if (weights.length !== n) throw new RangeError(`weights (${weights.length}) and values (${n}) differ in length`);
  for (let i = 0; i < n; i++) {
    if (!(weights[i] > 0)) throw new RangeError(`weights must be positive, got ${weights[i]} at ${i}`);
  }
  // A non-increasing fit of y is minus the non-decreasing fit of -y.
  const sign = options.increasing === false ? -1 : 1;
  const fit = poolAdjacentViolators(
    Float64Array.from(y, (v) => sign * v),
    weights,
  );
  return sign === 1 ? fit : fit.map((v) => -v);
}

/** Non-decreasing PAVA with a stack of blocks (value, weight, length). */
function poolAdjacentViolators(y: Float64Array, w: ArrayLike<number>): Float64Array {
  const n = y.length;
  const value = new Float64Array(n);
  const weight = new Float64Array(n);
  const length = new Int32Array(n);
  let blocks = 0;
  for (let i = 0; i < n; i++) {
    value[blocks] = y[i];
    weight[blocks] = w[i];
    length[blocks] = 1;
    blocks++;
    while (blocks > 1 && value[blocks - 2] > value[blocks - 1]) {
      const merged = weight[blocks - 2] + weight[blocks - 1];
      value[blocks - 2] = (weight[blocks - 2] * value[blocks - 2] + weight[blocks - 1] * value[blocks - 1]) / merged;
      weight[blocks - 2] = merged;
      length[blocks - 2] += length[blocks - 1];
      blocks--;
    }
  }
  const fit = new Float64Array(n);
  let position = 0;
  for (let b = 0; b < blocks; b++) {
    fit.fill(value[b], position, position + length[b]);
    position += length[b];
  }
  return fit;
}
