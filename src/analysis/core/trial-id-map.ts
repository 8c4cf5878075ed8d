/**
 * A read-mostly map from trial id to a value many trials share (a scoring, a formatted gold),
 * for facts kept about every trial of a run. The store's ids (24 hex digits, core/hash.ts trialId)
 * arrive in ascending order, as the store pages them: those are kept as 12 bytes each with a
 * value code and found by binary search, so half a million entries cost about 8 MB outside V8's
 * heap instead of some 45 MB of strings and hash table on it. Any other id is kept in a Map.
 */
import { Dictionary } from "../../core/dictionary.js";
import type { AnalysisRow } from "./row.js";
import { storeIdOf } from "./trial-columns.js";
import {
  compareTrialId,
  compareTrialIdBytes,
  isStoreTrialId,
  readTrialId,
  TRIAL_ID_BYTES,
  writeTrialId,
} from "./trial-id-bytes.js";

export class TrialIdMap<V> implements ReadonlyMap<string, V> {
  private ids = new Uint8Array(0);
  private codes = new Uint32Array(0);
  private sorted = 0;
  private readonly distinct = new Dictionary<V>();
  private readonly others = new Map<string, V>();

  get size(): number {
    return this.sorted + this.others.size;
  }

  set(id: string, value: V): this {
    if (!isStoreTrialId(id)) {
      this.others.set(id, value);
      return this;
    }
    // The store's order: after the last id kept, so appended without a search.
    if (this.sorted === 0 || compareTrialId(this.ids, this.sorted - 1, id) < 0) {
      this.append(id, value);
      return this;
    }
    const at = this.indexOf(id);
    if (at >= 0) this.codes[at] = this.distinct.code(value);
    else this.others.set(id, value);
    return this;
  }

  get(id: string): V | undefined {
    const other = this.others.get(id);
    if (other !== undefined) return other;
    const at = isStoreTrialId(id) ? this.indexOf(id) : -1;
    return at < 0 ? undefined : this.distinct.values[this.codes[at]];
  }

  has(id: string): boolean {
    return this.others.has(id) || (isStoreTrialId(id) && this.indexOf(id) >= 0);
  }

  *entries(): MapIterator<[string, V]> {
    for (let i = 0; i < this.sorted; i++) yield [readTrialId(this.ids, i), this.distinct.values[this.codes[i]]];
    yield* this.others.entries();
  }

  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [id, value] of this.entries()) callback(value, id, this);
  }

  private append(id: string, value: V): void {
    if (this.sorted === this.codes.length) {
      const capacity = Math.max(1_024, this.sorted * 2);
      const ids = new Uint8Array(capacity * TRIAL_ID_BYTES);
      ids.set(this.ids);
      const codes = new Uint32Array(capacity);
      codes.set(this.codes);
      this.ids = ids;
      this.codes = codes;
    }
    writeTrialId(this.ids, this.sorted, id);
    this.codes[this.sorted] = this.distinct.code(value);
    this.sorted++;
  }

  /** The value of the store id at place j of `bytes` (a table's id column), without making its string. */
  getAt(bytes: Uint8Array, j: number): V | undefined {
    // A store id that arrived out of order is kept by its string.
    if (this.others.size > 0) return this.get(readTrialId(bytes, j));
    const at = this.search((mid) => compareTrialIdBytes(this.ids, mid, bytes, j));
    return at < 0 ? undefined : this.distinct.values[this.codes[at]];
  }

  /** The place of a store-form id among the sorted ones, or -1. */
  private indexOf(id: string): number {
    return this.search((mid) => compareTrialId(this.ids, mid, id));
  }

  /** Binary search of the sorted ids by `order` (the sign of the id at a place minus the one sought). */
  private search(order: (place: number) => number): number {
    let lo = 0;
    let hi = this.sorted - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const sign = order(mid);
      if (sign === 0) return mid;
      if (sign < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/**
 * The value a map of trial facts holds for a row's trial. A view of a table's columns whose id is
 * a store id is looked up by the id's bytes, so no id string is made per row.
 */
export function valueOfRow<V>(map: ReadonlyMap<string, V>, row: AnalysisRow): V | undefined {
  if (map instanceof TrialIdMap) {
    const stored = storeIdOf(row);
    if (stored !== null) return map.getAt(stored.bytes, stored.place);
  }
  return row.trialId === null ? undefined : map.get(row.trialId);
}
