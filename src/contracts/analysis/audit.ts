/**
 * The perturbation audit (Auditing the Audit §3, Table 1, App. E-G): CSR's epsilon floor, the
 * item-paired bootstrap and the gate's thresholds. The bootstrap resamples items with all their
 * perturbations; `resampling` admits only "item", so an unpaired bootstrap cannot be requested (F4).
 * G1's thresholds are the integrity section's `no_op_rate` and `parseability`.
 */
import * as z from "zod";
import { lazySchema } from "../lazy-schema.js";
import { proportion } from "./fields.js";

export const AuditPlanSchema = lazySchema(() =>
  z
    .object({
      epsilon: z.number().gt(0).default(0.01).describe("CSR denominator floor (an engineering floor, not a test)"),
      resamples: z.number().int().min(100).max(100_000).default(1000).describe("Item-paired bootstrap resamples"),
      resampling: z
        .literal("item")
        .default("item")
        .describe("Items are resampled with all their perturbations; independent resampling is not offered (F4)"),
      bootstrap_seed: z.number().int().default(42),
      level: proportion.default(0.95),
      seeds: z
        .array(z.number().int())
        .min(1)
        .default([42, 123, 2024])
        .describe("Perturbation seeds: the first gives the cell's CSR, all of them its seed CV"),
      g3: z.number().min(0).default(0.02).describe("G3: smallest max(|Delta_fmt|, |Delta_sem|)"),
      baseline_se: z.number().gt(0).default(2).describe("G2: SEs above the trivial baseline"),
      seed_cv: z.number().gt(0).default(0.3).describe("G4: largest CV of CSR across seeds"),
      min_items: z.number().int().min(1).default(30).describe("G4 n_items_ok: fewest items with usable pairs"),
      g5: z
        .enum(["implemented", "partial", "proposed"])
        .default("proposed")
        .describe(
          "G5 archetype disclosure: proposed, as the paper's Table 1 lists it (each benchmark's archetype is declared and shown, but its enforcement is not attested); 'implemented' only when the team attests it",
        ),
      g6: z
        .enum(["implemented", "partial", "proposed"])
        .default("proposed")
        .describe(
          "G6 repair-regression: per-cell scorer-output inspection and a test for every scoring fix; 'implemented' only when the team attests it",
        ),
      diff_samples: z.number().int().min(0).max(20).default(2).describe("Original vs perturbed prompts shown per cell"),
    })
    .strict(),
);

export type AuditPlan = z.infer<typeof AuditPlanSchema>;
