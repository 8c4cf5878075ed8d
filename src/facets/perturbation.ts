/**
 * The perturbation facet `perturbation` (Auditing the Audit §3, App. C): `none` (the original
 * item), a family (`format`, `semantic`, `attribute`, `placebo`: the family's slot-th perturbation
 * on each item, `{name: format, slot: 1, seed: 123}`), or one named perturbation
 * (`{name: case_change, variant: 1}` plus its own settings). It acts on the ITEM before formatting
 * (renderTrialTask's item stage), so the change reaches every format, scaffold and scoring path;
 * the formatted task then gets the perturbation's task-level part (new option letters) and its
 * record (`task.perturbation`: what changed, or why it does not apply), which is stored with the
 * task. A perturbation that does not apply leaves the item as it is and says so in the record.
 */
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import { facetLabel, facetName, facetSettings } from "../contracts/condition.js";
import type { Item } from "../contracts/item.js";
import type { FacetValue } from "../contracts/spec.js";
import type { TaskInput, TaskPerturbation } from "../contracts/task.js";
import { InputError } from "../core/errors.js";
import {
  applyPerturbation,
  DEFAULT_PER_ITEM,
  DEFAULT_SEED,
  isFamily,
  perturbFamily,
  perturbations,
} from "../perturb/registry.js";
import { CSR_SEEDS } from "../stats/csr.js";
import { PERTURBATION_FAMILIES, type Perturbation, type PerturbationRecord } from "../perturb/types.js";
import type { Facet, ItemStageResult, RenderContext } from "./types.js";

export const NO_PERTURBATION = "none";

const seed = lazySchema(() => z.number().int());

const familySettings = lazySchema(() =>
  z
    .object({
      seed: seed.optional(),
      slot: z.number().int().min(0).optional(),
      per_item: z.number().int().min(1).optional(),
    })
    .strict()
    .refine((s) => (s.slot ?? 0) < (s.per_item ?? DEFAULT_PER_ITEM), {
      message: `slot must be below per_item (default ${DEFAULT_PER_ITEM})`,
      path: ["slot"],
    }),
);

/** seed and variant, plus the perturbation's own settings (its strict schema, or none). */
function perturbationSettings(p: Perturbation): z.ZodType {
  const common = z.object({ seed: seed.optional(), variant: z.number().int().min(0).optional() }).strict();
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const { seed: s, variant, ...own } = value;
    const report = (issues: z.core.$ZodIssue[]) => {
      for (const issue of issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    };
    const c = common.safeParse(
      Object.fromEntries(Object.entries({ seed: s, variant }).filter(([, v]) => v !== undefined)),
    );
    if (!c.success) report(c.error.issues);
    if (p.settingsSchema) {
      const r = p.settingsSchema.safeParse(own);
      if (!r.success) report(r.error.issues);
    } else {
      for (const key of Object.keys(own))
        ctx.addIssue({ code: "custom", path: [key], message: `perturbation '${p.name}' takes no setting '${key}'` });
    }
  });
}

export const perturbationFacet: Facet = {
  name: "perturbation",
  description: "the item perturbation: none, a family (format, semantic, attribute, placebo) or one perturbation",
  stage: "perturbation",
  knownValues: () => [NO_PERTURBATION, ...PERTURBATION_FAMILIES, ...perturbations.names()],
  settingsSchema(valueName) {
    if (isFamily(valueName)) return familySettings;
    if (perturbations.has(valueName)) return perturbationSettings(perturbations.get(valueName));
    return undefined;
  },
  applyToItem: applyPerturbationValue,
  expandValue: expandFamilyValue,
};

/** The audit's seeds (App. F: "across seeds {42, 123, 2024}"); the first is the primary one. */
export const AUDIT_SEEDS: readonly number[] = CSR_SEEDS;

/**
 * A family value without a slot stands for its per_item slots (App. C: three perturbations per
 * item per family), and without a seed for every audit seed, so the trials exist for every
 * (item, perturbation, seed). `{name: format, seed: 7}` gives the 3 slots at seed 7 only; a value
 * with both slot and seed, `none` and named perturbations are themselves.
 */
export function expandFamilyValue(value: FacetValue): FacetValue[] {
  const name = facetName(value);
  if (!isFamily(name)) return [value];
  const settings = familySettings.parse(facetSettings(value));
  const perItem = settings.per_item ?? DEFAULT_PER_ITEM;
  const slots = settings.slot === undefined ? [...Array(perItem).keys()] : [settings.slot];
  const seeds = settings.seed === undefined ? AUDIT_SEEDS : [settings.seed];
  return seeds.flatMap((s) =>
    slots.map((slot): FacetValue => {
      const value: { name: string; [key: string]: string | number } = { name, seed: s, slot };
      if (settings.per_item !== undefined) value.per_item = settings.per_item;
      return value;
    }),
  );
}

/** The record of a facet value on an item: the perturbed item, or why nothing applies (null for `none`). */
export function perturbationRecord(
  item: Item,
  value: FacetValue,
  context: RenderContext = {},
): PerturbationRecord | null {
  const name = facetName(value);
  const settings = facetSettings(value);
  if (name === NO_PERTURBATION) return null;
  if (isFamily(name)) {
    const s = familySettings.parse(settings);
    return perturbFamily(item, name, {
      seed: s.seed ?? DEFAULT_SEED,
      slot: s.slot ?? 0,
      perItem: s.per_item ?? DEFAULT_PER_ITEM,
      pool: context.pool,
    });
  }
  if (!perturbations.has(name)) {
    throw new InputError(`unknown perturbation '${name}'; known: ${perturbationFacet.knownValues().join(", ")}`);
  }
  const { seed: s, variant, ...own } = settings;
  return applyPerturbation(item, name, {
    seed: typeof s === "number" ? s : DEFAULT_SEED,
    variant: typeof variant === "number" ? variant : 0,
    settings: own,
    pool: context.pool,
  });
}

function applyPerturbationValue(item: Item, value: FacetValue, context: RenderContext): ItemStageResult {
  const record = perturbationRecord(item, value, context);
  if (record === null) return { item, finishTask: (task) => task };
  const base = {
    value: facetLabel(value),
    perturbation: record.perturbation,
    family: record.family,
    seed: record.seed,
    variant: record.variant,
    ...(record.slot === undefined ? {} : { slot: record.slot }),
  };
  if (record.status === "not_applicable") {
    const perturbation: TaskPerturbation = { ...base, status: "not_applicable", reason: record.reason };
    return { item, finishTask: (task) => ({ ...task, perturbation }) };
  }
  return {
    item: record.item,
    finishTask(task: TaskInput): TaskInput {
      const letters = record.taskEdit?.optionLetters;
      if (letters) {
        if (!task.validLetters || !task.options || task.options.length !== letters.length) {
          const reason = `the label format needs the options shown (format '${task.format}' shows none)`;
          return { ...task, perturbation: { ...base, status: "not_applicable", reason } };
        }
        task = relabel(task, [...letters]);
      }
      const perturbation: TaskPerturbation = {
        ...base,
        status: "applied",
        changed: record.changed,
        note: record.note,
      };
      return { ...task, perturbation };
    },
  };
}

/** The task with new option letters, in its options and in its answer instruction. */
function relabel(task: TaskInput, letters: string[]): TaskInput {
  const old = task.validLetters!;
  const answerInstruction = task.answerInstruction.includes(old.join(", "))
    ? task.answerInstruction.replace(old.join(", "), letters.join(", "))
    : `${task.answerInstruction} The answer letters are ${letters.join(", ")}.`;
  return { ...task, validLetters: letters, answerInstruction };
}
