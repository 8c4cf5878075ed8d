/**
 * Attribute: demographic swap (App. C, BBQ and CrowS-Pairs). Every listed demographic term in the
 * stem and the options is replaced, in one pass, by a term of the same kind (words.ts); the answer
 * key stays fixed (App. F: "swaps demographic tokens while the answer key stays fixed"). The
 * CrowS-Pairs sentences in metadata (sent_more / sent_less) are swapped the same way, so the
 * scored sentence pair and its record agree.
 */
import { copyItem, matchCase, wordPattern } from "../text.js";
import type { Perturbation } from "../types.js";
import { DEMOGRAPHIC_TERMS } from "../words.js";
import { constructMismatch } from "./signatures.js";

const PATTERN = wordPattern(Object.keys(DEMOGRAPHIC_TERMS));

export function swapTerms(text: string, variant: number, swaps: string[]): string {
  return text.replace(PATTERN, (word) => {
    const options = DEMOGRAPHIC_TERMS[word.toLowerCase()];
    const swapped = matchCase(word, options[variant % options.length]);
    swaps.push(`${word} -> ${swapped}`);
    return swapped;
  });
}

export const demographicSwap: Perturbation = {
  name: "demographic_swap",
  family: "attribute",
  description: "swaps the demographic terms of the stem and options for terms of the same kind",
  writes: ["stem", "options"],
  apply(item, ctx) {
    const mismatch = constructMismatch(item, "demographic");
    if (mismatch) return { notApplicable: mismatch };
    const swaps: string[] = [];
    const out = copyItem(item);
    out.stem = swapTerms(item.stem, ctx.variant, swaps);
    if (item.options) out.options = item.options.map((o) => swapTerms(o, ctx.variant, swaps));
    if (swaps.length === 0) return { notApplicable: "no listed demographic term in the stem or the options" };
    for (const key of ["sent_more", "sent_less"] as const) {
      const v = item.metadata[key];
      if (typeof v === "string") out.metadata[key] = swapTerms(v, ctx.variant, []);
    }
    return { item: out, note: [...new Set(swaps)].join("; ") };
  },
};
