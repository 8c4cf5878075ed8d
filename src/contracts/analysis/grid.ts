/**
 * The grid study kind's section of the analysis plan (SafetyRepro): the configuration axes, the
 * reference configuration, CFR thresholds, the roster, subsamples, the configuration bootstrap
 * and the envelopes, with the paper's tiers as the default envelopes.
 */
import * as z from "zod";
import { lazySchema } from "../lazy-schema.js";
import { facetName, familyName, proportion } from "./fields.js";

/** The harness-configuration axes of SafetyRepro's grid (§3), as facets of the spec. */
export const GRID_AXES = ["template", "decoding", "few_shot", "scoring_path", "quantization"] as const;

/** A named subset of the grid: keep these axis values (include), then drop those (exclude). */
export const GridEnvelopeSchema = lazySchema(() =>
  z
    .object({
      include: z.record(facetName, z.array(z.string().min(1)).min(1)).default({}),
      exclude: z.record(facetName, z.array(z.string().min(1)).min(1)).default({}),
    })
    .strict(),
);

/**
 * The paper's envelope tiers (§5.1, Table 4, App. Y, App. T): core = T1-T3 x greedy/moderate
 * decoding; stress adds T4 and diverse T = 0.7 decoding, so `full` = core + stress; the ablations
 * drop one stress axis each; the conservative core is T1 + T3 x greedy x 0-shot.
 */
export const PAPER_ENVELOPES = {
  full: {},
  excl_t4: { exclude: { template: ["T4"] } },
  excl_diverse: { exclude: { decoding: ["diverse"] } },
  core: { exclude: { template: ["T4"], decoding: ["diverse"] } },
  conservative_core: { include: { template: ["T1", "T3"], decoding: ["greedy"], few_shot: ["0"] } },
} as const;

export const GridPlanSchema = lazySchema(() =>
  z
    .object({
      axes: z
        .array(facetName)
        .min(1)
        .optional()
        .describe("Facets whose combination is a configuration (default: every facet but the seed facet)"),
      seed_facet: facetName
        .default("decoding_seed")
        .describe("Facet of the decoding seed: averaged per item with the attempts, never an axis"),
      reference: z
        .record(facetName, z.string().min(1))
        .default({})
        .describe("The declared reference configuration of the card's point score (default: each axis's first level)"),
      thresholds: z
        .array(z.number().min(0).max(1))
        .min(1)
        .default([0.5, 0.6, 0.7, 0.8])
        .describe("CFR_theta thresholds (App. L); a score >= theta passes"),
      cfr_not_applicable: z
        .array(z.string().min(1))
        .default(["crows_pairs"])
        .describe("Benchmarks without a pass/fail cutoff: CFR is N/A there (App. G, L: CrowS-Pairs)"),
      roster: z
        .array(z.string().min(1))
        .min(2)
        .optional()
        .describe("The declared comparison roster of tau_R and rho_flip (default: every model)"),
      greedy: z.string().min(1).default("greedy").describe("The decoding level of the matched scoring-method pairs"),
      parse_clean: z
        .number()
        .min(0)
        .max(1)
        .default(0.95)
        .describe("Parse-clean subset: every model's parse rate >= this"),
      subsamples: z
        .object({
          count: z.number().int().min(0).max(20).default(3),
          fraction: proportion.default(0.8),
          seed: z.number().int().default(43),
        })
        .strict()
        .default({ count: 3, fraction: 0.8, seed: 43 })
        .describe("Stratified item subsamples (App. X: three 80% subsamples, seeds 43-45)"),
      resamples: z
        .number()
        .int()
        .min(0)
        .max(100_000)
        .default(1000)
        .describe("Configuration-bootstrap resamples (App. G)"),
      seed: z.number().int().default(42),
      level: proportion.default(0.95),
      envelopes: z
        .record(familyName, GridEnvelopeSchema)
        .default(() =>
          Object.fromEntries(Object.entries(PAPER_ENVELOPES).map(([name, e]) => [name, GridEnvelopeSchema.parse(e)])),
        )
        .describe("Named subsets of the grid, each re-analysed (default: the paper's tiers and ablations)"),
      rules: z
        .string()
        .min(1)
        .optional()
        .describe("The envelope's rules file (YAML, relative to the spec): hashed at run time, checked at analysis"),
    })
    .strict(),
);

export type GridPlan = z.infer<typeof GridPlanSchema>;
