/**
 * A perturbation of a benchmark item (Auditing the Audit §3, App. C): one file per perturbation,
 * registered in registry.ts. A perturbation acts on the item BEFORE it is formatted, so the change
 * reaches every format, scaffold and scoring path; it is deterministic from (item, perturbation,
 * seed, variant), and it either returns the perturbed item or says why it does not apply.
 */
import type { z } from "zod";
import type { Item } from "../contracts/item.js";
import type { RandomStream } from "../stats/random.js";

export const PERTURBATION_FAMILIES = ["format", "semantic", "attribute", "placebo"] as const;
export type PerturbationFamily = (typeof PERTURBATION_FAMILIES)[number];

/** What a perturbation may write: the item's stem, its options, or the option letters of the formatted task. */
export type PerturbedPart = "stem" | "options" | "option_letters";

export interface PerturbationContext {
  /** The audit seed (default 42; the seed-stability check uses 42, 123 and 2024). */
  seed: number;
  /** Which of the perturbation's realisations (0, 1, 2, ...): a family's k-th slot on an item may use variant > 0. */
  variant: number;
  /** The perturbation's settings, parsed by its settingsSchema (defaults filled). */
  settings: Readonly<Record<string, unknown>>;
  /** The other items of the item's benchmark, for perturbations that look up a partner item. */
  pool?: readonly Item[];
  /** A stream seeded by (item id, perturbation name, seed, variant): the only source of randomness. */
  random: RandomStream;
}

/**
 * A task-level part of a perturbation, applied after formatting by the perturbation facet: new
 * option letters (the label-format change). The scorers read the task's letters, so the change
 * reaches the scored prompt.
 */
export interface TaskEdit {
  optionLetters?: readonly string[];
}

export type PerturbationOutcome = { item: Item; taskEdit?: TaskEdit; note: string } | { notApplicable: string };

export interface Perturbation {
  name: string;
  family: PerturbationFamily;
  /** One line: what it changes. */
  description: string;
  writes: readonly PerturbedPart[];
  /** Strict schema of its settings (everything optional, defaults filled); none: it takes no settings. */
  settingsSchema?: z.ZodType<Record<string, unknown>>;
  /** The perturbed item (a copy; never the input mutated) or why it does not apply to this item. */
  apply(item: Item, ctx: PerturbationContext): PerturbationOutcome;
}

/** What applying a perturbation (or a family slot) to one item produced; stored with the task. */
export type PerturbationRecord =
  | {
      status: "applied";
      perturbation: string;
      family: PerturbationFamily;
      seed: number;
      variant: number;
      /** The family slot (0-based) when a family value chose the perturbation. */
      slot?: number;
      item: Item;
      taskEdit?: TaskEdit;
      note: string;
      /** The parts that differ from the original item. */
      changed: PerturbedPart[];
    }
  | {
      status: "not_applicable";
      /** null when no perturbation of the family applied (a family slot). */
      perturbation: string | null;
      family: PerturbationFamily;
      seed: number;
      variant: number;
      slot?: number;
      reason: string;
    };
