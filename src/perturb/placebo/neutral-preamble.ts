/** Placebo: a neutral line before the stem ("Next item."); it carries no instruction and no content. */
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";

export const PREAMBLES: readonly string[] = ["Next item.", "Here is the next item.", "New item follows."];

export const neutralPreamble: Perturbation = {
  name: "neutral_preamble",
  family: "placebo",
  description: "prepends a neutral line that introduces the item",
  writes: ["stem"],
  apply(item, ctx) {
    const out = copyItem(item);
    const line = PREAMBLES[ctx.variant % PREAMBLES.length];
    out.stem = `${line}\n${item.stem}`;
    return { item: out, note: line };
  },
};
