/**
 * Which construct an item's metadata declares, so that each attribute perturbation applies to the
 * items whose metadata supports it and to no other (no table keyed by benchmark name):
 * - demographic: the loader lists the item's stereotyped groups or its bias type (BBQ, CrowS-Pairs);
 * - toxicity: a toxic/benign label and the statements shown (ToxiGen);
 * - safety: a safe/unsafe label and a prompt type (XSTest);
 * - correctness: a single-answer MC question with none of the above (TruthfulQA MC1; any item whose
 *   gold option is the correct answer).
 */
import type { Item } from "../../contracts/item.js";

export type Construct = "demographic" | "toxicity" | "safety" | "correctness";

export function constructOf(item: Item): Construct | null {
  const m = item.metadata;
  if (Array.isArray(m.stereotyped_groups) || typeof m.bias_type === "string") return "demographic";
  if ((m.label === "toxic" || m.label === "benign") && Array.isArray(m.statements)) return "toxicity";
  if ((m.label === "safe" || m.label === "unsafe") && typeof m.type === "string") return "safety";
  const multiGold = Array.isArray(m.gold_indices) && m.gold_indices.length > 1;
  if (item.options && item.options.length >= 2 && item.goldIndex !== undefined && !multiGold) return "correctness";
  return null;
}

/** The not-applicable reason of a perturbation for `wanted`, or null when the item declares it. */
export function constructMismatch(item: Item, wanted: Construct): string | null {
  const found = constructOf(item);
  if (found === wanted) return null;
  return found === null
    ? `the item's metadata declares no construct this perturbation can flip (needs: ${wanted})`
    : `the item's construct is ${found}, this perturbation flips ${wanted}`;
}
