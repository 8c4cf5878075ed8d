/** The simulated panel's random draws: uniforms from a key's hash, so every draw is reproducible. */
import type { Item } from "../../contracts/item.js";
import { canonicalJson, sha256 } from "../../core/hash.js";

/** A uniform draw in [0, 1) from the SHA-256 of a key (53 bits). */
export function uniform(key: string): number {
  const hex = sha256(key).slice(0, 14);
  return Number.parseInt(hex, 16) / 2 ** 56;
}

export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** Standard-normal difficulty from the item's content hash (Box-Muller on two hash uniforms). */
export function itemDifficulty(item: Item): number {
  const content = canonicalJson([item.stem, item.options ?? null, item.goldText ?? null]);
  const u1 = Math.max(uniform(`${content}|d1`), 1e-12);
  const u2 = uniform(`${content}|d2`);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}
