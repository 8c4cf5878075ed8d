/**
 * Deterministic per-item option shuffles. Several published files put the correct answer
 * first (TruthfulQA MC1/MC2); shown as is, any first-option bias inflates scores (F3b in
 * Auditing the Audit). The permutation depends only on the seed and the item id, so it is
 * the same on every machine and for every sampling of the items.
 */
import type { BenchmarkSpec } from "../contracts/spec.js";
import { InputError } from "../core/errors.js";
import { sha256 } from "../core/hash.js";

/** Uniform numbers in [0, 1) from SHA-256 of (key, counter): 53 bits from each 64-bit slice. */
function* uniforms(key: string): Generator<number> {
  for (let counter = 0; ; counter++) {
    const hex = sha256(`${key}#${counter}`);
    for (let offset = 0; offset + 16 <= hex.length; offset += 16) {
      yield Number(BigInt(`0x${hex.slice(offset, offset + 16)}`) >> 11n) / 2 ** 53;
    }
  }
}

/** A Fisher-Yates permutation of 0..n-1: result[k] is the original index shown at position k. */
export function seededPermutation(n: number, key: string): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  const draws = uniforms(key);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(draws.next().value! * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The shuffle seed from spec.options.shuffle_seed (default 0), or null when options.shuffle is false. */
export function shuffleSeed(spec: BenchmarkSpec): number | null {
  const { shuffle, shuffle_seed: seed } = spec.options ?? {};
  if (shuffle !== undefined && typeof shuffle !== "boolean") {
    throw new InputError(`benchmark '${spec.id}': options.shuffle must be true or false`);
  }
  if (seed !== undefined && !Number.isInteger(seed)) {
    throw new InputError(`benchmark '${spec.id}': options.shuffle_seed must be an integer`);
  }
  return shuffle === false ? null : ((seed as number | undefined) ?? 0);
}

/** Options reordered by the item's permutation, with a map from original to shown index. */
export function shuffleOptions(
  options: readonly string[],
  seed: number | null,
  itemId: string,
): { options: string[]; permutation: number[]; shownIndex: (original: number) => number } {
  const permutation = seed === null ? options.map((_, i) => i) : seededPermutation(options.length, `${seed}|${itemId}`);
  const shown = new Map(permutation.map((original, position) => [original, position]));
  return { options: permutation.map((i) => options[i]), permutation, shownIndex: (original) => shown.get(original)! };
}
