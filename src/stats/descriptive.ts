// Small descriptive helpers shared by the procedures: means, SDs, type-7 quantiles, mid-ranks.

/** A two-sided interval [lower, upper]. */
export type Interval = [lower: number, upper: number];

export function sum(values: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

export function mean(values: ArrayLike<number>): number {
  return sum(values) / values.length;
}

/** Sample standard deviation with denominator n - 1 (NaN for fewer than two values). */
export function standardDeviation(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return Number.NaN;
  const m = mean(values);
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (values[i] - m) ** 2;
  return Math.sqrt(squares / (n - 1));
}

/**
 * Quantile of already sorted values with linear interpolation between order statistics
 * (Hyndman-Fan type 7 = R's default = numpy.percentile's default): h = (n - 1) q.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile level must be in [0, 1], got ${q}`);
  const h = (n - 1) * q;
  const below = Math.floor(h);
  if (below >= n - 1) return sorted[n - 1];
  return sorted[below] + (h - below) * (sorted[below + 1] - sorted[below]);
}

/** Type-7 quantiles of unsorted values (a sorted copy is made). */
export function quantiles(values: ArrayLike<number>, levels: readonly number[]): number[] {
  const sorted = Float64Array.from(values).sort();
  return levels.map((q) => quantileSorted(sorted, q));
}

/** Percentile interval at `level` (e.g. 0.95 gives the 2.5% and 97.5% type-7 quantiles). */
export function percentileInterval(values: ArrayLike<number>, level: number): Interval {
  const [lower, upper] = quantiles(values, [(1 - level) / 2, (1 + level) / 2]);
  return [lower, upper];
}

/** Mid-ranks (1-based; tied values share the average of their ranks). */
export function midRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b]);
  const ranks = new Float64Array(n);
  let start = 0;
  while (start < n) {
    let end = start;
    while (end + 1 < n && values[order[end + 1]] === values[order[start]]) end++;
    const averageRank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]] = averageRank;
    start = end + 1;
  }
  return ranks;
}

/** Sizes of the groups of equal values (only groups of two or more). */
export function tieGroupSizes(values: ArrayLike<number>): number[] {
  const sorted = Float64Array.from(values).sort();
  const sizes: number[] = [];
  let run = 1;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1]) {
      run++;
    } else {
      if (run > 1) sizes.push(run);
      run = 1;
    }
  }
  return sizes;
}

export function pearsonCorrelation(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxy / Math.sqrt(sxx * syy);
}
