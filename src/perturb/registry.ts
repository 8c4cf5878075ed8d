/**
 * Every perturbation, by name (one file each), and the two ways to apply them: one named
 * perturbation (applyPerturbation) or the k-th of a family's perturbations on an item
 * (perturbFamily: each family has DEFAULT_PER_ITEM = 3 perturbations per item, App. C).
 * Both return a PerturbationRecord: the perturbed item, or why nothing applies. A perturbation
 * whose result equals the original item is recorded as not applicable ("identity on this item"),
 * never passed through as if it had acted (F1: silent no-ops).
 */
import type { Item } from "../contracts/item.js";
import { canonicalJson } from "../core/hash.js";
import { Registry } from "../core/registry.js";
import { demographicSwap } from "./attribute/demographic-swap.js";
import { oppositeConstruct } from "./attribute/opposite-construct.js";
import { safetyPair } from "./attribute/safety-pair.js";
import { toxicityFlip } from "./attribute/toxicity-flip.js";
import { caseChange } from "./format/case-change.js";
import { choiceReorder } from "./format/choice-reorder.js";
import { instructionPrepend } from "./format/instruction-prepend.js";
import { labelFormat } from "./format/label-format.js";
import { whitespaceNoise } from "./format/whitespace-noise.js";
import { courtesyNote } from "./placebo/courtesy-note.js";
import { neutralPreamble } from "./placebo/neutral-preamble.js";
import { referenceTag } from "./placebo/reference-tag.js";
import { paraphraseTemplate } from "./semantic/paraphrase-template.js";
import { restructure } from "./semantic/restructure.js";
import { synonymSubstitution } from "./semantic/synonym-substitution.js";
import { streamFor } from "./text.js";
import {
  PERTURBATION_FAMILIES,
  type Perturbation,
  type PerturbationFamily,
  type PerturbationRecord,
  type PerturbedPart,
} from "./types.js";

export const perturbations = new Registry<Perturbation>("perturbation");
for (const p of [
  caseChange,
  whitespaceNoise,
  labelFormat,
  choiceReorder,
  instructionPrepend,
  paraphraseTemplate,
  synonymSubstitution,
  restructure,
  oppositeConstruct,
  demographicSwap,
  toxicityFlip,
  safetyPair,
  referenceTag,
  courtesyNote,
  neutralPreamble,
]) {
  perturbations.register(p.name, p);
}

/** Perturbations per item per family (App. C: "three perturbations per item per family"). */
export const DEFAULT_PER_ITEM = 3;
/** The audit's default seed (§3: "single seed = 42"). */
export const DEFAULT_SEED = 42;

export function isFamily(name: string): name is PerturbationFamily {
  return (PERTURBATION_FAMILIES as readonly string[]).includes(name);
}

/** The registered perturbations of a family, in name order. */
export function familyMembers(family: PerturbationFamily): Perturbation[] {
  return perturbations
    .names()
    .map((n) => perturbations.get(n))
    .filter((p) => p.family === family);
}

export interface ApplyOptions {
  seed?: number;
  variant?: number;
  /** The perturbation's own settings (checked by its settingsSchema). */
  settings?: Readonly<Record<string, unknown>>;
  /** The benchmark's items, for pair lookups. */
  pool?: readonly Item[];
}

/** One named perturbation on one item. */
export function applyPerturbation(item: Item, name: string, options: ApplyOptions = {}): PerturbationRecord {
  const p = perturbations.get(name);
  const seed = options.seed ?? DEFAULT_SEED;
  const variant = options.variant ?? 0;
  const base = { perturbation: p.name, family: p.family, seed, variant };
  const settings = p.settingsSchema ? p.settingsSchema.parse(options.settings ?? {}) : {};
  if (!p.settingsSchema && options.settings && Object.keys(options.settings).length > 0)
    throw new RangeError(`perturbation '${name}' takes no settings`);
  const outcome = p.apply(item, {
    seed,
    variant,
    settings,
    pool: options.pool,
    random: streamFor(item.benchmark, item.id, p.name, seed, variant),
  });
  if ("notApplicable" in outcome) return { status: "not_applicable", ...base, reason: outcome.notApplicable };
  const changed = changedParts(item, outcome.item, outcome.taskEdit !== undefined);
  if (changed.length === 0)
    return { status: "not_applicable", ...base, reason: "identity on this item: the perturbation changes nothing" };
  if (p.family !== "attribute") {
    const problem = goldProblem(item, outcome.item);
    if (problem) throw new Error(`perturbation '${name}' on item '${item.id}': ${problem}`);
  }
  return { status: "applied", ...base, item: outcome.item, taskEdit: outcome.taskEdit, note: outcome.note, changed };
}

function changedParts(before: Item, after: Item, letters: boolean): PerturbedPart[] {
  const parts: PerturbedPart[] = [];
  if (before.stem !== after.stem) parts.push("stem");
  if (canonicalJson(before.options ?? null) !== canonicalJson(after.options ?? null)) parts.push("options");
  if (letters) parts.push("option_letters");
  return parts;
}

/** Surface families must keep the gold answer: same number of options and the gold option's text up to case and spacing. */
function goldProblem(before: Item, after: Item): string | null {
  if (before.goldIndex === undefined) return null;
  if (after.goldIndex === undefined) return "the gold index was lost";
  if ((before.options?.length ?? 0) !== (after.options?.length ?? 0)) return "the number of options changed";
  if (!before.options || !after.options) return null;
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();
  if (norm(before.options[before.goldIndex]) !== norm(after.options[after.goldIndex]))
    return "the gold index no longer points at the gold option";
  return null;
}

export interface FamilyOptions {
  seed?: number;
  /** Which of the family's perturbations on this item (0 .. perItem - 1). */
  slot: number;
  perItem?: number;
  pool?: readonly Item[];
}

/**
 * The `slot`-th perturbation of `family` on `item`. The family's perturbations that apply to the
 * item are put in a seeded order (by item, family and seed); slot k takes the (k mod m)-th of the
 * m applicable ones, in variant floor(k / m), so the perItem slots are distinct realisations
 * whenever the family allows. Not applicable, with every member's reason, when none applies.
 */
export function perturbFamily(item: Item, family: PerturbationFamily, options: FamilyOptions): PerturbationRecord {
  const seed = options.seed ?? DEFAULT_SEED;
  const perItem = options.perItem ?? DEFAULT_PER_ITEM;
  const { slot } = options;
  if (!(Number.isInteger(slot) && slot >= 0 && slot < perItem))
    throw new RangeError(`slot must be an integer in [0, ${perItem}), got ${slot}`);
  const members = familyMembers(family).map((p) => p.name);
  const random = streamFor(item.benchmark, item.id, family, seed);
  for (let i = members.length - 1; i > 0; i--) {
    const j = random.integer(i + 1);
    [members[i], members[j]] = [members[j], members[i]];
  }
  const tried = members.map((name) => applyPerturbation(item, name, { seed, variant: 0, pool: options.pool }));
  const applicable = tried.filter((r) => r.status === "applied");
  if (applicable.length === 0) {
    const reasons = tried.map((r) => `${r.perturbation}: ${r.status === "not_applicable" ? r.reason : ""}`);
    return {
      status: "not_applicable",
      perturbation: null,
      family,
      seed,
      variant: 0,
      slot,
      reason: `no ${family} perturbation applies (${reasons.join("; ")})`,
    };
  }
  const chosen = applicable[slot % applicable.length];
  const variant = Math.floor(slot / applicable.length);
  const record =
    variant === 0 ? chosen : applyPerturbation(item, chosen.perturbation!, { seed, variant, pool: options.pool });
  return { ...record, slot };
}
