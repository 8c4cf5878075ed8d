/**
 * The order of a sequential run: whole items (every model, condition and attempt of an item
 * together) in a seeded random order per benchmark; look k holds the first ceil(t_k x n_b)
 * items of each benchmark b, so every look is balanced across conditions, models and benchmarks.
 */
import type { SequentialSpec } from "../../contracts/spec.js";
import { seededPermutation } from "../../datasets/shuffle.js";
import type { PreparedStudy } from "../prepare/study.js";

export interface LookSchedule {
  fractions: number[];
  /** Cluster key (benchmark, item) -> the index of the first look that holds it. */
  entersAt: Map<string, number>;
  /** Items per look (cumulative, every benchmark). */
  itemsAt: number[];
}

export function clusterOf(benchmarkId: string, itemId: string): string {
  return `${benchmarkId}\u0000${itemId}`;
}

export function lookSchedule(study: PreparedStudy, sequential: SequentialSpec): LookSchedule {
  const seed = sequential.seed ?? study.spec.seed;
  const entersAt = new Map<string, number>();
  const itemsAt = sequential.looks.map(() => 0);
  for (const [benchmarkId, items] of study.items) {
    const ids = [...items.keys()];
    const order = seededPermutation(ids.length, `sequential:${seed}:${benchmarkId}`);
    const cutoffs = sequential.looks.map((t) => Math.ceil(t * ids.length - 1e-9));
    order.forEach((original, position) => {
      const look = cutoffs.findIndex((cut) => position < cut);
      entersAt.set(clusterOf(benchmarkId, ids[original]), look);
    });
    cutoffs.forEach((cut, k) => {
      itemsAt[k] += cut;
    });
  }
  return { fractions: [...sequential.looks], entersAt, itemsAt };
}
