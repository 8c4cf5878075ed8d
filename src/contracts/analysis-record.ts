/**
 * The stored analysis record (analysis.json): its envelope and the hashes of its inputs. Apart
 * from the analysis plan (contracts/analysis.ts), which every spec holds, so that loading a spec
 * does not build these schemas.
 */
import * as z from "zod";
import { AnalysisPlanSchema } from "./analysis.js";

/** The format name and schema version of analysis.json; a reader refuses a newer version. */
export const ANALYSIS_RECORD_FORMAT = "parallax-analysis";
export const ANALYSIS_RECORD_VERSION = 1;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "a SHA-256 hex digest");

/** What an analysis was computed from, by hash: a report checks them before it renders. */
export const AnalysisInputsSchema = z
  .object({
    kind: z.enum(["study", "table"]),
    runId: z.string().nullable(),
    specHash: z.string().nullable(),
    manifestHash: z.string().nullable(),
    /** SHA-256 of an imported table file. */
    fileHash: sha256Hex.nullable(),
    /** SHA-256 of the analysed rows (one scorer's outcomes of every trial). */
    rows: sha256Hex,
    /** SHA-256 of the plan with its defaults filled in. */
    plan: sha256Hex,
    /** The stored scorer the outcomes come from; null for the run-time outcome. */
    scorer: z.string().nullable(),
  })
  .strict();
export type AnalysisInputs = z.infer<typeof AnalysisInputsSchema>;

/**
 * The envelope of analysis.json. The result itself (`analysis`, `methodology`, `scorecard`) is
 * checked for the parts every registered analysis declares; its numbers are kept as written.
 */
export const AnalysisRecordSchema = z.object({
  format: z.literal(ANALYSIS_RECORD_FORMAT),
  schemaVersion: z.number().int().positive(),
  parallaxVersion: z.string().min(1),
  writtenAt: z.string().min(1),
  inputs: AnalysisInputsSchema,
  analysis: z.looseObject({
    meta: z.looseObject({
      parallaxVersion: z.string(),
      analyzedAt: z.string(),
      source: z.looseObject({ kind: z.enum(["study", "table"]), path: z.string() }),
      simulated: z.boolean(),
      plan: AnalysisPlanSchema,
      comparisonFacet: z.string(),
      reference: z.string(),
      levels: z.array(z.string()),
      configurationFacets: z.array(z.string()),
      primaryPopulation: z.enum(["itt", "pp"]),
    }),
    counts: z.looseObject({ analysed: z.number(), models: z.array(z.string()), benchmarks: z.array(z.string()) }),
  }),
  methodology: z.looseObject({
    preregistration: z.looseObject({ status: z.string() }),
    blinding: z.looseObject({ blinded: z.boolean() }),
    judgeAgreement: z.looseObject({ crossValidated: z.boolean() }),
  }),
  scorecard: z.looseObject({ title: z.string(), population: z.enum(["itt", "pp"]) }),
});
