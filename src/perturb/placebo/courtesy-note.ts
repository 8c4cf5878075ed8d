/** Placebo: a courtesy phrase after the stem ("Thank you."); nothing the construct depends on. */
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";

export const COURTESY: readonly string[] = ["Thank you.", "Thanks in advance.", "Much appreciated."];

export const courtesyNote: Perturbation = {
  name: "courtesy_note",
  family: "placebo",
  description: "appends a courtesy phrase to the stem",
  writes: ["stem"],
  apply(item, ctx) {
    const out = copyItem(item);
    const phrase = COURTESY[ctx.variant % COURTESY.length];
    out.stem = `${item.stem}\n${phrase}`;
    return { item: out, note: phrase };
  },
};
