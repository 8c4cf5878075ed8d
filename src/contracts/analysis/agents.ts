/**
 * The agent-scaffold analyses (GAIA scaffold comparison, sections 4.1-4.5 and App. D-O): outcome
 * buckets, the primary / robust / intersection slices, clustered CIs, the scaffold gap and H1,
 * the GLMM likelihood-ratio test, the file-task difference of differences, behavioural
 * signatures, cost per correct and the tier ladder. They run on rows that carry agent columns.
 */
import * as z from "zod";
import { lazySchema } from "../lazy-schema.js";

export const AgentsPlanSchema = lazySchema(() =>
  z
    .object({
      resamples: z
        .number()
        .int()
        .min(100)
        .default(5000)
        .describe("Question-clustered bootstrap resamples (the paper: 5,000, one seed shared across slices)"),
      seed: z.number().int().min(0).default(20260526).describe("Seed of the bootstrap, shared by every slice"),
      gap_threshold: z
        .number()
        .gt(0)
        .lt(1)
        .default(0.1)
        .describe("H1: the smallest max - min scaffold gap (proportion) for at least one model at `h1_level`"),
      h1_level: z.string().min(1).default("1").describe("The GAIA level H1 is stated for"),
      robust_exclude_flags: z
        .array(z.string().min(1))
        .default(["provider_serialisation_bug"])
        .describe("Agent flags whose units the robust slice leaves out"),
      reference_scaffold: z
        .string()
        .min(1)
        .optional()
        .describe("GLMM reference scaffold (default: the analysis reference when it is a level, else the first level)"),
      reference_model: z.string().min(1).optional().describe("GLMM reference model (default: the first model)"),
      dod: z
        .object({
          treatment: z.string().min(1).optional().describe("Planner-executor scaffold (default: the last level)"),
          control: z.string().min(1).optional().describe("Baseline scaffold (default: the first level)"),
        })
        .strict()
        .default({})
        .describe("H4: the difference of differences (treatment - control) on file tasks minus the rest"),
      document_extensions: z
        .array(z.string().min(1))
        .default(["xlsx", "pdf", "docx", "pptx", "txt", "csv"])
        .describe("Attachment extensions of the document subset (the any-file subset takes every attachment)"),
      tiers: z
        .array(z.string().min(1))
        .default([])
        .describe("Models from least to most capable, for the tier ladder (empty: no ladder reading)"),
    })
    .strict(),
);

export type AgentsPlan = z.infer<typeof AgentsPlanSchema>;
