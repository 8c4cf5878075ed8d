/**
 * Which of many keys a text contains, first in the keys' order: the answer of a scan that tests
 * `text.includes(key)` key by key, found in time that grows with the text rather than the keys
 * (a simulated panel matches every prompt against every item of a paper-size study).
 */

/** Keys are indexed by a hash of their first PROBE characters; shorter keys are tested one by one. */
const PROBE = 12;
const NO_KEYS: readonly number[] = [];
/** A polynomial hash in 32-bit integer arithmetic (wrapping), cut to a small integer for the map. */
const BASE = 257;
/** BASE^(PROBE-1) mod 2^32: the weight of the character leaving a rolling window. */
const LEADING = Array.from({ length: PROBE - 1 }).reduce<number>((w) => Math.imul(w, BASE), 1);
const SMALL = 0x3fffffff;

/** The hash of text[from, from + PROBE), the same as the rolling hash reaches at that window. */
function probeHash(text: string, from: number): number {
  let h = 0;
  for (let i = from; i < from + PROBE; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

export class ContainedKeys {
  private readonly byProbe = new Map<number, number[]>();
  private readonly short: number[] = [];

  constructor(private readonly keys: readonly string[]) {
    for (const [i, key] of keys.entries()) {
      if (key.length < PROBE) this.short.push(i);
      else {
        const probe = probeHash(key, 0) & SMALL;
        const list = this.byProbe.get(probe);
        if (list) list.push(i);
        else this.byProbe.set(probe, [i]);
      }
    }
  }

  /** The index of the first key `text` contains, or -1. */
  first(text: string): number {
    const short = this.short.find((i) => text.includes(this.keys[i]));
    const best = this.firstLong(text, short ?? Number.POSITIVE_INFINITY);
    return best === Number.POSITIVE_INFINITY ? -1 : best;
  }

  /**
   * The first long key before `best` that `text` contains, else `best`. Every occurrence of a long
   * key starts where its probe does, so looking up each position's probe (a rolling hash; equal
   * hashes are checked against the text) finds every key the text contains.
   */
  private firstLong(text: string, best: number): number {
    if (text.length < PROBE || this.byProbe.size === 0) return best;
    let h = probeHash(text, 0);
    for (let at = 0; at + PROBE <= text.length; at++) {
      if (at > 0) {
        h = (h - Math.imul(text.charCodeAt(at - 1), LEADING)) | 0;
        h = (Math.imul(h, BASE) + text.charCodeAt(at + PROBE - 1)) | 0;
      }
      for (const i of this.byProbe.get(h & SMALL) ?? NO_KEYS) {
        if (i >= best) break;
        if (text.startsWith(this.keys[i], at)) {
          best = i;
          break;
        }
      }
    }
    return best;
  }
}
