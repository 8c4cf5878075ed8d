/**
 * A model's score across the conditions studied: its rate in each condition on the shared items,
 * the lowest and highest of them and their spread, each with a case-cluster bootstrap interval
 * (a resampled item brings all of its trials in every condition; the lowest and highest condition
 * are chosen again in every resample, so the intervals carry the noise that picks them).
 */
import { type Interval, percentileInterval } from "../../stats/index.js";
import type { Pool, PooledTrial } from "./profile-pool.js";

/** Per condition and item: outcome sums and trial counts, [condition * items + item]. */
export interface ItemSums {
  conditions: number;
  items: number;
  successes: Float64Array;
  trials: Float64Array;
}

export function itemSums(pool: Pool, trials: readonly PooledTrial[]): ItemSums {
  const items = pool.items.length;
  const conditions = pool.conditions.length;
  const successes = new Float64Array(conditions * items);
  const counts = new Float64Array(conditions * items);
  for (const t of trials) {
    successes[t.condition * items + t.item] += t.y;
    counts[t.condition * items + t.item] += 1;
  }
  return { conditions, items, successes, trials: counts };
}

/** The rate of each condition on the drawn items (all items when draw is null); NaN without trials. */
export function conditionRates(sums: ItemSums, draw: ArrayLike<number> | null): Float64Array {
  const rates = new Float64Array(sums.conditions);
  const count = draw ? draw.length : sums.items;
  for (let c = 0; c < sums.conditions; c++) {
    let s = 0;
    let n = 0;
    for (let p = 0; p < count; p++) {
      const slot = c * sums.items + (draw ? draw[p] : p);
      s += sums.successes[slot];
      n += sums.trials[slot];
    }
    rates[c] = n ? s / n : Number.NaN;
  }
  return rates;
}

/** The pooled rate over every trial of the drawn items. */
export function pooledRate(sums: ItemSums, draw: ArrayLike<number> | null): number {
  let s = 0;
  let n = 0;
  const count = draw ? draw.length : sums.items;
  for (let c = 0; c < sums.conditions; c++) {
    for (let p = 0; p < count; p++) {
      const slot = c * sums.items + (draw ? draw[p] : p);
      s += sums.successes[slot];
      n += sums.trials[slot];
    }
  }
  return n ? s / n : Number.NaN;
}

export interface ConditionScore {
  condition: string;
  rate: number;
}

export interface ScoreRange {
  /** Rate over every trial of the model on the shared items. */
  score: number;
  scoreCi: Interval;
  /** Every condition the model ran, in pool order. */
  conditions: ConditionScore[];
  lowest: ConditionScore & { ci: Interval };
  highest: ConditionScore & { ci: Interval };
  /** highest - lowest. */
  spread: number;
  spreadCi: Interval;
}

function extremes(rates: ArrayLike<number>): { low: number; high: number; lowAt: number; highAt: number } {
  let [low, high, lowAt, highAt] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, -1];
  for (let c = 0; c < rates.length; c++) {
    if (!Number.isFinite(rates[c])) continue;
    if (rates[c] < low) [low, lowAt] = [rates[c], c];
    if (rates[c] > high) [high, highAt] = [rates[c], c];
  }
  return { low, high, lowAt, highAt };
}

/** The model's score range across its conditions, with intervals over the item resamples. */
export function scoreRange(pool: Pool, sums: ItemSums, draws: readonly Int32Array[], level: number): ScoreRange {
  const rates = conditionRates(sums, null);
  const observed = extremes(rates);
  const replicates = { score: [] as number[], low: [] as number[], high: [] as number[], spread: [] as number[] };
  for (const draw of draws) {
    const e = extremes(conditionRates(sums, draw));
    replicates.score.push(pooledRate(sums, draw));
    replicates.low.push(e.low);
    replicates.high.push(e.high);
    replicates.spread.push(e.high - e.low);
  }
  const interval = (values: number[]) => percentileInterval(values.filter(Number.isFinite), level);
  const conditions = pool.conditions.flatMap((c, i) =>
    Number.isFinite(rates[i]) ? [{ condition: c.label, rate: rates[i] }] : [],
  );
  return {
    score: pooledRate(sums, null),
    scoreCi: interval(replicates.score),
    conditions,
    lowest: { condition: pool.conditions[observed.lowAt].label, rate: observed.low, ci: interval(replicates.low) },
    highest: { condition: pool.conditions[observed.highAt].label, rate: observed.high, ci: interval(replicates.high) },
    spread: observed.high - observed.low,
    spreadCi: interval(replicates.spread),
  };
}
