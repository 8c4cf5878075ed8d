/**
 * The sidecar of an EEE export (`parallax-sidecar.json` at the export's root): what Every Eval
 * Ever has no place for. The conditions of every instance (by condition hash), the cluster id of
 * every instance (benchmark/item: the case the bootstrap and the robust SEs resample), which
 * evaluation result is which model x benchmark x configuration cell, and the paired contrasts of
 * the stored analysis, and the study's provenance (its SIMULATED label, Parallax version, spec
 * hash, what it was imported from). `parallax import eee` reads it back to restore the
 * conditions and the provenance.
 */
import * as z from "zod";
import { StudyProvenanceSchema } from "../../contracts/provenance.js";

export const SIDECAR_FILE = "parallax-sidecar.json";
export const SIDECAR_FORMAT = "parallax-eee-sidecar";
export const SIDECAR_VERSION = 1;

export const SidecarSchema = z.looseObject({
  format: z.literal(SIDECAR_FORMAT),
  version: z.number().int(),
  study: z.string(),
  run_id: z.string(),
  facets: z.array(z.string()),
  conditions: z.record(z.string(), z.record(z.string(), z.string())),
  evaluation_results: z.record(
    z.string(),
    z.looseObject({ model: z.string(), benchmark: z.string(), configuration: z.string() }),
  ),
  instances: z.array(
    z.looseObject({
      evaluation_id: z.string(),
      evaluation_result_id: z.string(),
      sample_id: z.string(),
      attempt: z.number().int().positive(),
      trial_id: z.string(),
      condition_hash: z.string(),
      cluster: z.string(),
    }),
  ),
  uncertainty: z.looseObject({ source: z.string() }),
  contrasts: z.unknown(),
  /** Absent in sidecars written before Parallax carried the provenance. */
  provenance: StudyProvenanceSchema.optional(),
});

export type Sidecar = z.infer<typeof SidecarSchema>;
