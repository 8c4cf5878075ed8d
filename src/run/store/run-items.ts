/**
 * How the store keeps a run's items and exemplar pools (migration 0024): in batches of up to
 * RUN_ITEM_BATCH items, each batch's JSON lines deflated into one row, beside the batch's
 * (benchmark, id) keys in plain JSON so a later save can skip what is stored without inflating
 * anything. A data set's items share most of their words and fields, so a batch compresses
 * tens of times better than an item alone: a run's items were about 100 MB of a paper-scale
 * store, one row per item.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Item } from "../../contracts/item.js";

/** Items per stored batch (about 0.7 MB of JSON before deflating, for items of 1.5 KB). */
export const RUN_ITEM_BATCH = 500;

/** A stored batch: its items' keys (JSON) and their JSON lines, deflated. */
export interface ItemBatch {
  keys: string;
  items: Uint8Array;
}

/** The key that identifies an item among a run's items (a benchmark id and an item id). */
export function itemKey(benchmark: string, id: string): string {
  return JSON.stringify([benchmark, id]);
}

/** Items as one batch row. Level 1: a run's setup waits for it, and level 6 saves little more. */
export function encodeItemBatch(items: readonly Item[]): ItemBatch {
  const keys = `[${items.map((item) => itemKey(item.benchmark, item.id)).join(",")}]`;
  // JSON.stringify escapes newlines inside strings, so one item is one line.
  const lines = items.map((item) => JSON.stringify(item)).join("\n");
  return { keys, items: deflateRawSync(lines, { level: 1 }) };
}

/** A batch row's item JSON strings, in their saved order. */
export function decodeItemLines(items: Uint8Array): string[] {
  return inflateRawSync(items).toString("utf8").split("\n");
}

/** A batch row's item keys (itemKey form). */
export function decodeItemKeys(keys: string): string[] {
  return (JSON.parse(keys) as [string, string][]).map(([benchmark, id]) => itemKey(benchmark, id));
}
