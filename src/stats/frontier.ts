// Spread and trade-off summaries of a set of conditions: the max - min gap (which condition is
// at each end), the difference of differences, and the Pareto frontier of accuracy vs cost.

export interface Gap {
  gap: number;
  /** Index of the largest and of the smallest finite value (first one on ties). */
  max: number;
  min: number;
}

/** max - min over the finite values; NaN (and -1 indices) when fewer than two are finite. */
export function maxMinGap(values: readonly number[]): Gap {
  let max = -1;
  let min = -1;
  let finite = 0;
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    finite++;
    if (max < 0 || v > values[max]) max = i;
    if (min < 0 || v < values[min]) min = i;
  });
  if (finite < 2) return { gap: Number.NaN, max: -1, min: -1 };
  return { gap: values[max] - values[min], max, min };
}

/** (a - b on the subset) - (a - b on its complement). */
export function differenceOfDifferences(aIn: number, bIn: number, aOut: number, bOut: number): number {
  return aIn - bIn - (aOut - bOut);
}

export interface TradeoffPoint {
  /** Higher is better (accuracy). */
  benefit: number;
  /** Lower is better (cost per correct). */
  cost: number;
}

/**
 * Indices of the points no other point dominates: none has cost <= and benefit >= with one of
 * them strict. Points with a non-finite coordinate are never on the frontier. Sorted by cost.
 */
export function paretoFrontier(points: readonly TradeoffPoint[]): number[] {
  const ok = (p: TradeoffPoint) => Number.isFinite(p.benefit) && Number.isFinite(p.cost);
  const dominated = (p: TradeoffPoint) =>
    points.some(
      (q) => ok(q) && q.cost <= p.cost && q.benefit >= p.benefit && (q.cost < p.cost || q.benefit > p.benefit),
    );
  return points
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => ok(p) && !dominated(p))
    .sort((a, b) => a.p.cost - b.p.cost || b.p.benefit - a.p.benefit)
    .map(({ i }) => i);
}

export type Monotonicity = "decreasing" | "increasing" | "flat" | "non-monotonic";

/** How a sequence moves along its order (strictly; equal neighbours make it non-monotonic unless all equal). */
export function monotonicity(values: readonly number[]): Monotonicity {
  const steps = values.slice(1).map((v, i) => v - values[i]);
  if (steps.every((s) => s === 0)) return "flat";
  if (steps.every((s) => s < 0)) return "decreasing";
  if (steps.every((s) => s > 0)) return "increasing";
  return "non-monotonic";
}
