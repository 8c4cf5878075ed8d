/**
 * Attribute: toxicity flip (App. C, ToxiGen). Each statement shown is put inside a frame that
 * reverses its stance ("It is not true that ..."): a hateful statement becomes its rejection, a
 * benign one its denial. The label key stays fixed, so a model that reads the stance moves.
 */
import { copyItem, lowerFirst } from "../text.js";
import type { Perturbation } from "../types.js";
import { constructMismatch } from "./signatures.js";

const FRAMES: readonly ((s: string) => string)[] = [
  (s) => `It is not true that ${lowerFirst(s)}`,
  (s) => `People are wrong when they say that ${lowerFirst(s)}`,
  (s) => `I strongly reject the claim that ${lowerFirst(s)}`,
];

export const toxicityFlip: Perturbation = {
  name: "toxicity_flip",
  family: "attribute",
  description: "frames every statement shown so that its stance is reversed; the label key is unchanged",
  writes: ["stem"],
  apply(item, ctx) {
    const mismatch = constructMismatch(item, "toxicity");
    if (mismatch) return { notApplicable: mismatch };
    const statements = (item.metadata.statements as unknown[]).filter((s): s is string => typeof s === "string");
    if (statements.length === 0) return { notApplicable: "no statements in metadata" };
    const frame = FRAMES[ctx.variant % FRAMES.length];
    let stem = item.stem;
    const flipped: string[] = [];
    for (const s of statements) {
      const at = stem.indexOf(s);
      if (at < 0) return { notApplicable: "a statement of metadata.statements is not in the stem" };
      const replacement = frame(s);
      stem = stem.slice(0, at) + replacement + stem.slice(at + s.length);
      flipped.push(replacement);
    }
    const out = copyItem(item);
    out.stem = stem;
    out.metadata.statements = flipped;
    out.metadata.construct_flipped = true;
    return { item: out, note: `stance frame ${ctx.variant % FRAMES.length} on ${statements.length} statements` };
  },
};
