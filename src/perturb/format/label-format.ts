/**
 * Format: the option labels (App. C "label-format changes"). The letters are set on the formatted
 * task (a TaskEdit), whose `validLetters` the option rendering, the answer instruction and every MC
 * scorer read, so the change reaches the scored prompt (the F1 failure of the paper was a label
 * style written to a field the scorer's prompt builder never read).
 */
import type { Perturbation } from "../types.js";

/** Letter sets without "I" (the extractor never reads the pronoun I as a letter). */
export const LABEL_SETS: readonly string[] = [
  "ZYXWVUTSRQPONMLKJHGFEDCB",
  "KLMNOPQRSTUVWXYZ",
  "BCDEFGHJKLMNOPQRSTUVWXYZ",
];

export const labelFormat: Perturbation = {
  name: "label_format",
  family: "format",
  description: "labels the options with another run of letters (Z, Y, X, ... / K, L, M, ... / B, C, D, ...)",
  writes: ["option_letters"],
  apply(item, ctx) {
    if (!item.options || item.options.length < 2) return { notApplicable: "the item has no options to label" };
    const set = LABEL_SETS[ctx.variant % LABEL_SETS.length];
    if (item.options.length > set.length)
      return { notApplicable: `${item.options.length} options, more than the ${set.length} letters of this label set` };
    const letters = [...set.slice(0, item.options.length)];
    return { item: structuredClone(item), taskEdit: { optionLetters: letters }, note: `labels ${letters.join(", ")}` };
  },
};
