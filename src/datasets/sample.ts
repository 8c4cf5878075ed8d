import type { Item } from "../contracts/item.js";
import { sha256 } from "../core/hash.js";

/**
 * How a stratified sample divides n: "proportional" to stratum sizes (largest remainders),
 * or "equal" (balanced, e.g. BBQ across categories x ambiguity as in ScaffoldSafety 3.4),
 * where a stratum smaller than its share gives the rest to the others.
 */
export type Allocation = "proportional" | "equal";

/**
 * Seeded sampling without replacement: items are ordered by sha256(seed, id) and the first n
 * kept, so the same seed always selects the same items whatever the file order. Stratified
 * sampling allocates n across the strata of metadata[stratifyBy], each drawn the same way.
 * The selection is returned in the source order.
 */
export function sampleItems(
  items: Item[],
  sample: { n: number; seed: number; stratifyBy?: string; allocation?: Allocation },
): Item[] {
  const { n, seed, stratifyBy, allocation = "proportional" } = sample;
  if (n >= items.length) return items;
  const chosen = new Set<string>(
    stratifyBy === undefined
      ? drawIds(items, n, seed)
      : stratifiedIds(items, { n, seed, field: stratifyBy, allocation }),
  );
  return items.filter((item) => chosen.has(item.id));
}

function drawIds(items: Item[], n: number, seed: number): string[] {
  return seededOrder(items, (item) => item.id, seed)
    .slice(0, n)
    .map((item) => item.id);
}

/** Rows ordered by sha256(seed|id): the first n of this order are a seeded draw of n. */
function seededOrder<T>(rows: readonly T[], idOf: (row: T) => string, seed: number): T[] {
  return rows
    .map((row) => ({ row, key: sha256(`${seed}|${idOf(row)}`) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((entry) => entry.row);
}

/**
 * The same seeded draw over any rows, per stratum: `count(size)` rows of each stratum (strata
 * in sorted order), so a subsample of trials or responses uses the sampler items use.
 */
export function sampleStrata<T>(
  rows: readonly T[],
  options: { id: (row: T) => string; stratum: (row: T) => string; count: (size: number) => number; seed: number },
): T[] {
  const strata = new Map<string, T[]>();
  for (const row of rows) {
    const key = options.stratum(row);
    const members = strata.get(key);
    if (members) members.push(row);
    else strata.set(key, [row]);
  }
  return [...strata.keys()].sort().flatMap((key) => {
    const members = strata.get(key)!;
    return seededOrder(members, options.id, options.seed).slice(0, options.count(members.length));
  });
}

function stratifiedIds(
  items: Item[],
  draw: { n: number; seed: number; field: string; allocation: Allocation },
): string[] {
  const { n, seed, field, allocation } = draw;
  const strata = new Map<string, Item[]>();
  for (const item of items) {
    const key = String(item.metadata[field] ?? "(missing)");
    const members = strata.get(key);
    if (members) members.push(item);
    else strata.set(key, [item]);
  }
  const names = [...strata.keys()].sort();
  const sizes = names.map((name) => strata.get(name)!.length);
  const counts = allocation === "equal" ? equalCounts(sizes, n, seed, names) : proportionalCounts(sizes, n);
  return names.flatMap((name, i) => drawIds(strata.get(name)!, counts[i], seed));
}

function proportionalCounts(sizes: number[], n: number): number[] {
  const total = sizes.reduce((sum, s) => sum + s, 0);
  const exact = sizes.map((size) => (n * size) / total);
  const counts = exact.map(Math.floor);
  const byRemainder = sizes.map((_, i) => i).sort((a, b) => exact[b] - counts[b] - (exact[a] - counts[a]) || a - b);
  const remaining = n - counts.reduce((sum, c) => sum + c, 0);
  for (let k = 0; k < remaining; k++) counts[byRemainder[k]]++;
  return counts;
}

/** Equal shares capped at stratum size; leftover units go to strata in a seeded order, not alphabetically. */
function equalCounts(sizes: number[], n: number, seed: number, names: string[]): number[] {
  const counts = sizes.map(() => 0);
  const order = names
    .map((_, i) => i)
    .sort((a, b) => (sha256(`${seed}|${names[a]}`) < sha256(`${seed}|${names[b]}`) ? -1 : 1));
  let left = n;
  while (left > 0) {
    const open = order.filter((i) => counts[i] < sizes[i]);
    const share = Math.floor(left / open.length);
    for (const i of open) {
      const add = Math.min(share, sizes[i] - counts[i]);
      counts[i] += add;
      left -= add;
    }
    if (share === 0) {
      for (const i of open.slice(0, left)) counts[i]++;
      left = 0;
    }
  }
  return counts;
}
