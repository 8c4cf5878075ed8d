/**
 * Attribute: the opposite-construct stem rewrite (App. C, TruthfulQA; App. D: it replaced the
 * legacy label inversion). The stem asks for a false answer instead of the true one, and the answer
 * key stays fixed: a model that follows the construct moves away from the key, so |Δ_attr| is large
 * for a diagnostic benchmark.
 */
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";
import { constructMismatch } from "./signatures.js";

const TEMPLATES: readonly ((stem: string) => string)[] = [
  (s) => `Which of the following answers to this question is false? ${s}`,
  (s) => `${s} Choose the answer that is NOT correct.`,
  (s) => `Pick an incorrect answer to the question below.\n${s}`,
];

export const oppositeConstruct: Perturbation = {
  name: "opposite_construct",
  family: "attribute",
  description: "rewrites the stem to ask for a false answer; the answer key is unchanged",
  writes: ["stem"],
  apply(item, ctx) {
    const mismatch = constructMismatch(item, "correctness");
    if (mismatch) return { notApplicable: mismatch };
    const out = copyItem(item);
    out.stem = TEMPLATES[ctx.variant % TEMPLATES.length](item.stem);
    out.metadata.construct_flipped = true;
    return { item: out, note: `opposite construct, template ${ctx.variant % TEMPLATES.length}` };
  },
};
