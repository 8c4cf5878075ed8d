/**
 * Across models: every pair compared on the trials both ran (same condition, item and attempt), a
 * ranking by score, tie groups of models not distinguishable after the plan's correction, and per
 * pair the share of conditions under which their order holds (the flip rate, generalised to every
 * condition of every study). The test unit is the item: a model's trials of one item are not
 * independent, so the exact McNemar test reads the items on which one model's rate over their
 * paired trials beats the other's.
 */
import {
  type AdjustmentMethod,
  adjustPValues,
  type Interval,
  mcnemarTest,
  percentileInterval,
} from "../../stats/index.js";
import type { Pool, PooledTrial } from "./profile-pool.js";

export interface RankingSettings {
  alpha: number;
  correction: AdjustmentMethod;
  level: number;
}

export interface ModelPair {
  /** The higher-ranked model, and the other. */
  higher: string;
  lower: string;
  /** Trials paired by condition, item and attempt; items with at least one. */
  pairs: number;
  items: number;
  /** Rate difference higher - lower on the paired trials, with its case-cluster bootstrap interval. */
  difference: number;
  ci: Interval;
  /** Items on which the higher (lower) model's rate over the paired trials is the larger. */
  itemsHigher: number;
  itemsLower: number;
  /** Exact McNemar p on those items (1 when none differs), and after the correction. */
  p: number;
  pAdjusted: number;
  distinguishable: boolean;
  /** Conditions both ran, and in how many the higher model scores higher, lower, or the same. */
  conditions: number;
  orderHolds: number;
  orderReversed: number;
  orderTied: number;
}

export interface RankedModel {
  model: string;
  score: number;
  /** 1-based tie group, in rank order. */
  group: number;
}

export interface Ranking {
  models: RankedModel[];
  /** Tie groups in rank order, each its models in rank order. */
  groups: string[][];
  pairs: ModelPair[];
}

/** Per item, the two models' outcome sums over their paired trials; per condition too. */
interface PairedSums {
  higher: Float64Array;
  lower: Float64Array;
  count: Float64Array;
  byCondition: { higher: number; lower: number; count: number }[];
}

function pairedSums(pool: Pool, higher: readonly PooledTrial[], lower: readonly PooledTrial[]): PairedSums {
  const key = (t: PooledTrial) => `${t.condition}\u0000${t.item}\u0000${t.attempt}`;
  const lowerOutcome = new Map(lower.map((t) => [key(t), t.y]));
  const sums: PairedSums = {
    higher: new Float64Array(pool.items.length),
    lower: new Float64Array(pool.items.length),
    count: new Float64Array(pool.items.length),
    byCondition: pool.conditions.map(() => ({ higher: 0, lower: 0, count: 0 })),
  };
  for (const t of higher) {
    const other = lowerOutcome.get(key(t));
    if (other === undefined) continue;
    sums.higher[t.item] += t.y;
    sums.lower[t.item] += other;
    sums.count[t.item] += 1;
    const c = sums.byCondition[t.condition];
    c.higher += t.y;
    c.lower += other;
    c.count += 1;
  }
  return sums;
}

function difference(sums: PairedSums, draw: ArrayLike<number> | null): number {
  let [h, l, n] = [0, 0, 0];
  const count = draw ? draw.length : sums.count.length;
  for (let p = 0; p < count; p++) {
    const item = draw ? draw[p] : p;
    h += sums.higher[item];
    l += sums.lower[item];
    n += sums.count[item];
  }
  return n ? (h - l) / n : Number.NaN;
}

function comparePair(
  pool: Pool,
  pair: { names: [string, string]; trials: [readonly PooledTrial[], readonly PooledTrial[]] },
  draws: readonly Int32Array[],
  level: number,
): ModelPair {
  const { names, trials } = pair;
  const sums = pairedSums(pool, trials[0], trials[1]);
  let [itemsHigher, itemsLower, items, pairs] = [0, 0, 0, 0];
  for (let i = 0; i < sums.count.length; i++) {
    if (!sums.count[i]) continue;
    items++;
    pairs += sums.count[i];
    if (sums.higher[i] > sums.lower[i]) itemsHigher++;
    else if (sums.higher[i] < sums.lower[i]) itemsLower++;
  }
  const ran = sums.byCondition.filter((c) => c.count > 0);
  const replicates = draws.map((draw) => difference(sums, draw)).filter(Number.isFinite);
  return {
    higher: names[0],
    lower: names[1],
    pairs,
    items,
    difference: difference(sums, null),
    ci: replicates.length ? percentileInterval(replicates, level) : [Number.NaN, Number.NaN],
    itemsHigher,
    itemsLower,
    p:
      itemsHigher + itemsLower === 0
        ? 1
        : mcnemarTest([
            [0, itemsHigher],
            [itemsLower, 0],
          ]).exact.p,
    pAdjusted: Number.NaN,
    distinguishable: false,
    conditions: ran.length,
    orderHolds: ran.filter((c) => c.higher > c.lower).length,
    orderReversed: ran.filter((c) => c.higher < c.lower).length,
    orderTied: ran.filter((c) => c.higher === c.lower).length,
  };
}

/**
 * Tie groups in rank order: a group begins with the highest-ranked model not yet placed and takes
 * each next model in rank order while it is not distinguishable from that first model.
 */
function tieGroups(order: readonly string[], distinguishable: (a: string, b: string) => boolean): string[][] {
  const groups: string[][] = [];
  for (const model of order) {
    const current = groups.at(-1);
    if (current && !distinguishable(current[0], model)) current.push(model);
    else groups.push([model]);
  }
  return groups;
}

/** Ranks the models by score, compares every pair, corrects across the pairs and forms the tie groups. */
export function rankModels(
  pool: Pool,
  models: { scores: ReadonlyMap<string, number>; trialsOf: ReadonlyMap<string, readonly PooledTrial[]> },
  draws: readonly Int32Array[],
  settings: RankingSettings,
): Ranking {
  const { scores, trialsOf } = models;
  const order = [...pool.models].sort((a, b) => scores.get(b)! - scores.get(a)! || a.localeCompare(b));
  const pairs: ModelPair[] = [];
  order.forEach((higher, i) => {
    for (const lower of order.slice(i + 1)) {
      pairs.push(
        comparePair(
          pool,
          { names: [higher, lower], trials: [trialsOf.get(higher)!, trialsOf.get(lower)!] },
          draws,
          settings.level,
        ),
      );
    }
  });
  if (pairs.length) {
    const adjusted = adjustPValues(
      pairs.map((p) => p.p),
      settings.correction,
      settings.alpha,
    );
    pairs.forEach((p, i) => {
      p.pAdjusted = adjusted.adjusted[i];
      p.distinguishable = adjusted.reject[i];
    });
  }
  const pairOf = (a: string, b: string) =>
    pairs.find((p) => (p.higher === a && p.lower === b) || (p.higher === b && p.lower === a))!;
  const groups = tieGroups(order, (a, b) => pairOf(a, b).distinguishable);
  const groupOf = new Map(groups.flatMap((members, g) => members.map((m) => [m, g + 1] as const)));
  return {
    models: order.map((model) => ({ model, score: scores.get(model)!, group: groupOf.get(model)! })),
    groups,
    pairs,
  };
}
