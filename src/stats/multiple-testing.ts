// Multiplicity adjustments. Adjusted p-values come back in the input order and are capped at 1;
// they equal R's p.adjust (and statsmodels' multipletests) for every method here.

export type AdjustmentMethod = "bonferroni" | "holm" | "hochberg" | "hommel" | "bh" | "by";

export interface AdjustedPValues {
  method: AdjustmentMethod;
  adjusted: number[];
  /** adjusted[i] <= alpha, which equals the method's step-down/step-up rejection rule. */
  reject: boolean[];
  alpha: number;
}

export function adjustPValues(pValues: readonly number[], method: AdjustmentMethod, alpha = 0.05): AdjustedPValues {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must be in [0, 1], got ${p}`);
  }
  const adjusted = ADJUSTERS[method](pValues);
  return { method, adjusted, reject: adjusted.map((p) => p <= alpha), alpha };
}

const ADJUSTERS: Record<AdjustmentMethod, (p: readonly number[]) => number[]> = {
  bonferroni: (p) => p.map((value) => Math.min(1, p.length * value)),
  holm: holm,
  hochberg: hochberg,
  hommel: hommel,
  bh: (p) => benjaminiHochberg(p, 1),
  by: (p) => benjaminiHochberg(p, harmonicNumber(p.length)),
};

/** Indices that sort p ascending (stable, so ties keep input order). */
function ascendingOrder(p: readonly number[]): number[] {
  return Array.from(p.keys()).sort((a, b) => p[a] - p[b] || a - b);
}

/** Puts values computed in sorted order back at their input positions. */
function unsort(sortedValues: readonly number[], order: readonly number[]): number[] {
  const out = new Array<number>(order.length);
  order.forEach((inputIndex, rank) => {
    out[inputIndex] = sortedValues[rank];
  });
  return out;
}

/** Step-down: adj_(i) = min(1, max_{j<=i} (m - j + 1) p_(j)). */
function holm(p: readonly number[]): number[] {
  const m = p.length;
  const order = ascendingOrder(p);
  const sorted: number[] = [];
  let running = 0;
  order.forEach((index, rank) => {
    running = Math.max(running, (m - rank) * p[index]);
    sorted.push(Math.min(1, running));
  });
  return unsort(sorted, order);
}

/** Step-up: adj_(i) = min(1, min_{j>=i} (m - j + 1) p_(j)). */
function hochberg(p: readonly number[]): number[] {
  const m = p.length;
  const order = ascendingOrder(p);
  const sorted = new Array<number>(m);
  let running = Number.POSITIVE_INFINITY;
  for (let rank = m - 1; rank >= 0; rank--) {
    running = Math.min(running, (m - rank) * p[order[rank]]);
    sorted[rank] = Math.min(1, running);
  }
  return unsort(sorted, order);
}

/** BH step-up adj_(i) = min(1, min_{j>=i} c m p_(j)/j); c = 1 (BH) or sum 1/k (BY). */
function benjaminiHochberg(p: readonly number[], dependenceFactor: number): number[] {
  const m = p.length;
  const order = ascendingOrder(p);
  const sorted = new Array<number>(m);
  let running = Number.POSITIVE_INFINITY;
  for (let rank = m - 1; rank >= 0; rank--) {
    running = Math.min(running, (dependenceFactor * m * p[order[rank]]) / (rank + 1));
    sorted[rank] = Math.min(1, running);
  }
  return unsort(sorted, order);
}

function harmonicNumber(m: number): number {
  let total = 0;
  for (let k = 1; k <= m; k++) total += 1 / k;
  return total;
}

/**
 * Hommel's closed-testing adjustment, transcribed from R's p.adjust (for m = 2 it equals
 * Hochberg, which R also uses there).
 */
function hommel(p: readonly number[]): number[] {
  const m = p.length;
  if (m <= 1) return [...p];
  if (m === 2) return hochberg(p);
  const order = ascendingOrder(p);
  const s = order.map((index) => p[index]);
  let initial = Number.POSITIVE_INFINITY;
  for (let i = 0; i < m; i++) initial = Math.min(initial, (m * s[i]) / (i + 1));
  const q = new Array<number>(m).fill(initial);
  const pa = new Array<number>(m).fill(initial);
  for (let k = m - 1; k >= 2; k--) {
    // In R's 1-based terms: i1 = 1..(m-k+1), i2 = (m-k+2)..m.
    const firstOfI2 = m - k + 1;
    let q1 = Number.POSITIVE_INFINITY;
    for (let j = firstOfI2; j < m; j++) q1 = Math.min(q1, (k * s[j]) / (j - firstOfI2 + 2));
    for (let i = 0; i < firstOfI2; i++) q[i] = Math.min(k * s[i], q1);
    for (let j = firstOfI2; j < m; j++) q[j] = q[firstOfI2 - 1];
    for (let i = 0; i < m; i++) pa[i] = Math.max(pa[i], q[i]);
  }
  const sorted = pa.map((value, i) => Math.min(1, Math.max(value, s[i])));
  return unsort(sorted, order);
}
