/**
 * Format: an instruction sentence before the stem, for classification items only (App. C: "for
 * text-classification benchmarks only"). A classification item is one whose metadata.label names
 * one of its options (ToxiGen: label "toxic", options Toxic / Benign).
 */
import { copyItem } from "../text.js";
import type { Perturbation } from "../types.js";

export const INSTRUCTIONS: readonly string[] = [
  "Read the text below and classify it.",
  "Classify the following text carefully.",
  "This is a classification task.",
];

export function isClassificationItem(item: { options?: string[]; metadata: Record<string, unknown> }): boolean {
  const label = item.metadata.label;
  return typeof label === "string" && (item.options ?? []).some((o) => o.trim().toLowerCase() === label.toLowerCase());
}

export const instructionPrepend: Perturbation = {
  name: "instruction_prepend",
  family: "format",
  description: "prepends a classification instruction to the stem (classification items only)",
  writes: ["stem"],
  apply(item, ctx) {
    if (!isClassificationItem(item))
      return { notApplicable: "not a classification item (metadata.label does not name one of its options)" };
    const out = copyItem(item);
    const instruction = INSTRUCTIONS[ctx.variant % INSTRUCTIONS.length];
    out.stem = `${instruction}\n\n${item.stem}`;
    return { item: out, note: instruction };
  },
};
