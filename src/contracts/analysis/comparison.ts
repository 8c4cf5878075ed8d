/**
 * The comparison study kind's sections of the analysis plan (ScaffoldSafety): the hypotheses
 * with the paper's primary configurations, trend scores and H3 sub-hypotheses as defaults, the
 * format comparison, option preservation, the specification curve, generalizability and
 * baseline dependence.
 */
import * as z from "zod";
import { lazySchema } from "../lazy-schema.js";
import { facetName, familyName, proportion } from "./fields.js";

/** Researcher degrees of freedom the specification curve can vary on a tidy table. */
export const SPEC_CURVE_DIMENSIONS = [
  "benchmark_subset",
  "model_subset",
  "population",
  "errored",
  "link",
  "adjustment",
  "firth",
  "scorer",
] as const;

/**
 * The paper's H4 ordinal complexity scores (ScaffoldSafety App. Q.3.2: Direct = 0, ReAct = 1,
 * Multi-Agent = 2, Map-Reduce = 3; Parallax's multi-agent configuration is the `critic` scaffold).
 */
export const PAPER_TREND_SCORES: Readonly<Record<string, number>> = { direct: 0, react: 1, critic: 2, map_reduce: 3 };

/** The paper's primary configurations (H1 family and the all-pairwise family, App. Q.3.3). */
export const PAPER_PRIMARY_FAMILY: readonly string[] = ["direct", "react", "critic", "map_reduce"];

export const TrendSchema = lazySchema(() =>
  z
    .object({
      order: z
        .array(z.string().min(1))
        .min(2)
        .optional()
        .describe("Levels of the comparison facet from least to most complex (default: ascending `scores`)"),
      scores: z
        .record(z.string(), z.number())
        .optional()
        .describe("Ordinal score per level (default: 0, 1, 2, ... along `order`)"),
      alternative: z
        .enum(["two-sided", "less", "greater"])
        .default("less")
        .describe("'less': safety falls as the score rises (ScaffoldSafety H4, one-sided)"),
    })
    .strict(),
);

/** What an H3 sub-hypothesis measures on its benchmark's rows. */
export const SUBHYPOTHESIS_MEASURES = ["safe", "unknown_ambiguous", "over_refusal"] as const;

/**
 * One directional H3 sub-hypothesis (ScaffoldSafety App. Q.3.2): a measure on one benchmark,
 * the conditions against the reference, and the predicted direction ('none': the null control,
 * tested two-sided as a joint Wald test of every condition).
 */
export const SubHypothesisSchema = lazySchema(() =>
  z
    .object({
      name: z.string().min(1),
      benchmark: z
        .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
        .describe("The benchmark, or benchmarks read together (e.g. [xstest, or_bench]), as the table names them"),
      conditions: z
        .array(z.string().min(1))
        .min(1)
        .optional()
        .describe("Conditions compared with the reference, pooled (default: every other primary configuration)"),
      measure: z
        .enum(SUBHYPOTHESIS_MEASURES)
        .describe(
          "safe: the scored outcome; unknown_ambiguous: BBQ 'unknown' chosen in ambiguous contexts; over_refusal: refusal of prompts that should be answered (XSTest/OR-Bench safe prompts)",
        ),
      prediction: z
        .enum(["increase", "decrease", "none"])
        .describe("Predicted change of the measure under the conditions"),
    })
    .strict(),
);

/** The paper's four H3 sub-hypotheses (App. Q.3.2; Holm within, Table 43). */
export const PAPER_SUBHYPOTHESES: z.infer<typeof SubHypothesisSchema>[] = [
  // "multi-agent lowers sycophancy": the non-sycophantic (safe) rate rises under the critic.
  { name: "H3-syc", benchmark: "sycophancy", conditions: ["critic"], measure: "safe", prediction: "increase" },
  // "scaffolding increases 'unknown' selection in BBQ ambiguous contexts".
  { name: "H3-bias", benchmark: "bbq", measure: "unknown_ambiguous", prediction: "increase" },
  // "multi-agent increases over-refusal".
  { name: "H3-refusal", benchmark: "xstest", conditions: ["critic"], measure: "over_refusal", prediction: "increase" },
  // "no effect on TruthfulQA" (the null control).
  { name: "H3-truth", benchmark: "truthfulqa", measure: "safe", prediction: "none" },
];

export const HypothesesSchema = lazySchema(() =>
  z
    .object({
      pairwise: z.boolean().default(true).describe("Each condition vs the reference (primary family)"),
      omnibus: z.boolean().default(true).describe("Joint Wald test that every condition equals the reference"),
      primary_family: z
        .array(z.string().min(1))
        .min(2)
        .default([...PAPER_PRIMARY_FAMILY])
        .describe(
          "The primary configurations, reference included: each vs the reference is the primary (H1) family, every pair the all-pairwise family. Compared levels outside it and outside `families` form the family 'undeclared'; when none of these levels is present, every compared level is primary",
        ),
      families: z
        .record(familyName, z.array(z.string().min(1)).min(1))
        .default({})
        .describe(
          "Further declared families of conditions (e.g. cot: [cot]), each compared with the reference and adjusted within by multiplicity.primary",
        ),
      all_pairs: z.boolean().default(true).describe("Every pair of primary configurations (all-pairwise family)"),
      interactions: z
        .array(facetName)
        .default(["model", "benchmark"])
        .describe("Interaction blocks condition x <column>, each a joint cluster-robust Wald test (secondary family)"),
      trend: z
        .union([TrendSchema, z.literal(false)])
        .default({ scores: { ...PAPER_TREND_SCORES }, alternative: "less" })
        .describe("Ordinal trend test, H4 (default: the paper's scores; false: none)"),
      subhypotheses: z
        .union([z.array(SubHypothesisSchema), z.literal(false)])
        .default(PAPER_SUBHYPOTHESES.map((h) => ({ ...h })))
        .describe("Directional H3 sub-hypotheses, Holm within (default: the paper's four; false: none)"),
    })
    .strict(),
);

export const FormatPlanSchema = lazySchema(() =>
  z.object({ facet: facetName.default("format"), mc: z.string().default("mc"), oe: z.string().default("oe") }).strict(),
);

export const OptionPreservingSchema = lazySchema(() =>
  z
    .object({
      standard: z.string().default("map_reduce").describe("The option-stripping condition"),
      preserving: z.string().default("map_reduce_options").describe("Its option-preserving variant"),
      max_undefined_share: proportion
        .default(0.1)
        .describe(
          "Largest share of bootstrap resamples in which recovery is undefined (no loss: denominator 0 or below) before its CI is refused",
        ),
    })
    .strict(),
);

export const SpecificationCurveSchema = lazySchema(() =>
  z
    .object({
      contrast: z
        .string()
        .optional()
        .describe("Condition compared with the reference (default: the one with the largest pooled |RD|)"),
      dimensions: z.array(z.enum(SPEC_CURVE_DIMENSIONS)).default(["benchmark_subset", "model_subset", "population"]),
      facet_subsets: z
        .array(facetName)
        .default([])
        .describe("Facets whose levels are alternative operationalisations (e.g. scorer): one level per specification"),
      leave_out: z
        .object({ benchmark: z.array(z.string().min(1)).optional(), model: z.array(z.string().min(1)).optional() })
        .strict()
        .default({})
        .describe(
          "Levels benchmark_subset / model_subset leave out one at a time (default: every level; ScaffoldSafety's primary curve: benchmark [sycophancy, xstest], model [opus, deepseek])",
        ),
      glmm: z
        .boolean()
        .default(true)
        .describe("Also fit the primary specification as a GLMM with a case random intercept (App. D #7, Q.3.5)"),
      glmm_max_rows: z
        .number()
        .int()
        .positive()
        .default(100_000)
        .describe("Above this many rows the GLMM refit is skipped, and says so (its Laplace fit grows with the rows)"),
      permutations: z.number().int().min(0).max(10_000).default(100),
      seed: z.number().int().default(42),
    })
    .strict(),
);

export const GeneralizabilitySchema = lazySchema(() =>
  z
    .object({
      object: facetName.default("model").describe("Object of measurement"),
      facets: z
        .array(facetName)
        .min(1)
        .max(2)
        .optional()
        .describe("Facets of the G-study (default: the comparison facet and benchmark)"),
      fixed: z
        .array(facetName)
        .optional()
        .describe(
          "Facets fixed in the universe of generalization (default: all of `facets`, as ScaffoldSafety App. O.1 states; [] = all random)",
        ),
      d_study: z
        .array(z.number().int().min(1))
        .min(1)
        .max(2)
        .default([8, 12])
        .describe("D-study facet sizes n', in `facets` order (default: the paper's 8 scaffolds x 12 benchmarks)"),
    })
    .strict(),
);

/**
 * Baseline dependence (ScaffoldSafety 6.3): across model x benchmark cells, the Spearman
 * correlation of the reference's safety rate with the condition's change from it.
 */
export const BaselineDependenceSchema = lazySchema(() =>
  z
    .object({
      condition: z.string().default("map_reduce").describe("The condition whose delta vs the reference is correlated"),
    })
    .strict(),
);

export type SpecCurveDimension = (typeof SPEC_CURVE_DIMENSIONS)[number];
