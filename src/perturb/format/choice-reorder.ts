/**
 * Format: the order of the options, with the gold answer following its option (App. C "choice
 * reordering"). Option-index metadata the loaders record (which option is the unknown one, the
 * stereotyped sentence, ...) follows too, so no reader is left pointing at the wrong option.
 */
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";

/** Metadata fields that hold an index into `options` (as shown). */
export const OPTION_INDEX_FIELDS = ["unknown_index", "target_index", "biased_index", "sent_more_index"] as const;

export const choiceReorder: Perturbation = {
  name: "choice_reorder",
  family: "format",
  description: "shows the options in another order; the gold index follows the gold option",
  writes: ["options"],
  apply(item, ctx) {
    const n = item.options?.length ?? 0;
    if (n < 2) return { notApplicable: "the item has fewer than two options" };
    let order: number[] = [];
    // A seeded Fisher-Yates shuffle, redrawn until it is not the identity (n >= 2 always allows one).
    for (let attempt = 0; attempt < 64; attempt++) {
      order = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = ctx.random.integer(i + 1);
        [order[i], order[j]] = [order[j], order[i]];
      }
      if (order.some((o, k) => o !== k)) break;
    }
    if (order.every((o, k) => o === k)) order = [...order.slice(1), order[0]];
    // order[k] = the original index shown at position k; newIndex[original] = k.
    const newIndex = new Array<number>(n);
    order.forEach((original, k) => {
      newIndex[original] = k;
    });
    const out = copyItem(item);
    out.options = order.map((k) => item.options![k]);
    if (item.goldIndex !== undefined) out.goldIndex = newIndex[item.goldIndex];
    for (const field of OPTION_INDEX_FIELDS) {
      const v = item.metadata[field];
      if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < n) out.metadata[field] = newIndex[v];
    }
    const gold = item.metadata.gold_indices;
    if (Array.isArray(gold)) out.metadata.gold_indices = gold.map((g) => newIndex[g as number]).sort((a, b) => a - b);
    out.metadata.perturbation_option_order = order;
    return { item: out, note: `option order ${order.join(",")}` };
  },
};
