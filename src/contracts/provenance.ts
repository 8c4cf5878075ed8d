/**
 * Where a study's data came from, carried by every export (CSV/JSONL columns, Parquet key-value
 * metadata, the EEE records and sidecar) and read back by `parallax import`, so that a simulated
 * study stays labelled SIMULATED however often it is exported and imported again.
 */
import * as z from "zod";

export interface StudyProvenance {
  study: string;
  run_id: string;
  /** Some trial's response came from a simulated respondent (directly or through an import). */
  simulated: boolean;
  /** The Parallax version that recorded the run (or made the import). */
  parallax_version: string;
  spec_hash: string;
  /** The format the run was imported from (`eee`, `inspect`, ...); null for a run Parallax executed. */
  imported_from: string | null;
  /** The provenance of the Parallax exports it was imported from, when they carried one. */
  origins: StudyProvenance[];
}

export const StudyProvenanceSchema: z.ZodType<StudyProvenance> = z.lazy(() =>
  z.object({
    study: z.string(),
    run_id: z.string(),
    simulated: z.boolean(),
    parallax_version: z.string(),
    spec_hash: z.string(),
    imported_from: z.string().nullable(),
    origins: z.array(StudyProvenanceSchema),
  }),
);

/** What an imported run records of its source (RunRecord.imported). */
export interface ImportedFrom {
  /** The importer's name. */
  format: string;
  /** The provenance the imported Parallax exports carried (none for other tools' logs). */
  origins: StudyProvenance[];
  /** Logs whose results declare another number of samples than their samples file holds: both counts. */
  counts?: { log: string; benchmark: string; declared: number; present: number }[];
}

/** True when the study or any study it was imported from is simulated. */
export function provenanceSimulated(provenance: Pick<StudyProvenance, "simulated" | "origins">): boolean {
  return provenance.simulated || provenance.origins.some(provenanceSimulated);
}
