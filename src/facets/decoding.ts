/**
 * The decoding facet `decoding` (SafetyRepro §3, App. T): named decoding settings. `greedy`
 * (T = 0), `moderate` (T = 0.3, top-p 0.9) and `diverse` (T = 0.7, top-p 0.9) by default; a value
 * may set its own `temperature`/`top_p`, and a custom name needs a temperature. Every stochastic
 * setting (T > 0) runs once per seed of its `seeds` list (default 1-5, the paper's 5 seeds): each
 * seed is its own condition, `{decoding, decoding_seed}`, so the seed is part of the condition
 * hash and the trial id, and it is passed to the provider as the `seed` parameter. Greedy has no
 * `decoding_seed`. The seeds are replicates nested in their setting, never a model term: the
 * analysis pools them (the grid averages per item over the seeds).
 */
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import type { Condition } from "../contracts/condition.js";
import { facetName, facetSettings } from "../contracts/condition.js";
import type { GenerationParams } from "../contracts/provider.js";
import type { FacetValue } from "../contracts/spec.js";
import type { Facet } from "./types.js";

export const DECODING_SEED = "decoding_seed";

/** The paper's three settings. */
export const DECODING_PRESETS: Readonly<Record<string, { temperature: number; top_p?: number }>> = {
  greedy: { temperature: 0 },
  moderate: { temperature: 0.3, top_p: 0.9 },
  diverse: { temperature: 0.7, top_p: 0.9 },
};

/** Seeds of a stochastic setting that declares none (the paper averages 5). */
export const DEFAULT_DECODING_SEEDS = [1, 2, 3, 4, 5] as const;

const seedsSchema = lazySchema(() =>
  z
    .array(z.number().int())
    .min(1)
    .refine((seeds) => new Set(seeds).size === seeds.length, "the seeds must differ"),
);

function settingsSchema(valueName: string): z.ZodType {
  const preset = DECODING_PRESETS[valueName];
  const temperature = z.number().min(0).max(2);
  return z
    .object({
      temperature: preset ? temperature.optional() : temperature,
      top_p: z.number().gt(0).max(1).optional(),
      seeds: seedsSchema.optional(),
    })
    .strict()
    .refine((s) => s.seeds === undefined || temperatureOf(valueName, s) > 0, {
      message: "a greedy setting (temperature 0) takes no seeds: it is deterministic",
      path: ["seeds"],
    });
}

function temperatureOf(name: string, settings: { temperature?: unknown }): number {
  return typeof settings.temperature === "number" ? settings.temperature : (DECODING_PRESETS[name]?.temperature ?? 0);
}

/** The value without its seed list: what the condition carries (a bare name when nothing else is left). */
function withoutSeeds(value: FacetValue): FacetValue {
  if (typeof value !== "object") return value;
  const { seeds: _seeds, ...rest } = value;
  return Object.keys(rest).length === 1 ? rest.name : rest;
}

function seedsOf(value: FacetValue): readonly number[] {
  const seeds = facetSettings(value).seeds;
  return Array.isArray(seeds) ? seeds : DEFAULT_DECODING_SEEDS;
}

export const decodingFacet: Facet = {
  name: "decoding",
  description: "the decoding setting: greedy, moderate (T=0.3, top-p 0.9), diverse (T=0.7, top-p 0.9), or custom",
  stage: "run",
  knownValues: () => Object.keys(DECODING_PRESETS),
  // A custom setting names its own temperature.
  acceptsCustom: (value) => typeof value === "object" && "temperature" in value,
  settingsSchema,
  impliedColumns: [DECODING_SEED],
  replicateColumns: [DECODING_SEED],
  expand(value) {
    const decoding = withoutSeeds(value);
    if (temperatureOf(facetName(value), facetSettings(value)) === 0) return [{ decoding }];
    return seedsOf(value).map((seed) => ({ decoding, [DECODING_SEED]: seed }));
  },
};

/**
 * The generation parameters a condition's decoding sets (temperature, top-p and the seed), to
 * lay over the model's own; empty without the facet.
 */
export function decodingParams(condition: Condition): GenerationParams {
  const value = condition.decoding;
  if (value === undefined) return {};
  const name = facetName(value);
  const settings = facetSettings(value);
  const preset = DECODING_PRESETS[name] ?? { temperature: 0 };
  const temperature = temperatureOf(name, settings);
  const topP = typeof settings.top_p === "number" ? settings.top_p : preset.top_p;
  const seed = condition[DECODING_SEED];
  return {
    temperature,
    ...(topP === undefined ? {} : { topP }),
    ...(typeof seed === "number" ? { seed } : {}),
  };
}

/** Whether a condition decodes greedily (no decoding facet: the model's own parameters decide, taken as greedy here). */
export function isGreedy(condition: Condition): boolean {
  return (decodingParams(condition).temperature ?? 0) === 0;
}
