import type { Item } from "../contracts/item.js";
import { sha256 } from "../core/hash.js";

/**
 * Seeded sampling without replacement: items are ordered by sha256(seed, id) and the first n
 * kept, so the same seed always selects the same items whatever the file order. Stratified
 * sampling allocates n proportionally to the strata (largest remainders), each drawn the
 * same way. The selection is returned in the source order.
 */
export function sampleItems(items: Item[], n: number, seed: number, stratifyBy?: string): Item[] {
  if (n >= items.length) return items;
  const chosen = new Set<string>(
    stratifyBy === undefined ? drawIds(items, n, seed) : stratifiedIds(items, n, seed, stratifyBy),
  );
  return items.filter((item) => chosen.has(item.id));
}

function drawIds(items: Item[], n: number, seed: number): string[] {
  return items
    .map((item) => ({ id: item.id, key: sha256(`${seed}|${item.id}`) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, n)
    .map((entry) => entry.id);
}

function stratifiedIds(items: Item[], n: number, seed: number, field: string): string[] {
  const strata = new Map<string, Item[]>();
  for (const item of items) {
    const key = String(item.metadata[field] ?? "(missing)");
    strata.set(key, [...(strata.get(key) ?? []), item]);
  }
  const names = [...strata.keys()].sort();
  const exact = names.map((name) => (n * strata.get(name)!.length) / items.length);
  const counts = exact.map(Math.floor);
  const byRemainder = names.map((_, i) => i).sort((a, b) => exact[b] - counts[b] - (exact[a] - counts[a]) || a - b);
  const remaining = n - counts.reduce((sum, c) => sum + c, 0);
  for (let k = 0; k < remaining; k++) counts[byRemainder[k]]++;
  return names.flatMap((name, i) => drawIds(strata.get(name)!, counts[i], seed));
}
