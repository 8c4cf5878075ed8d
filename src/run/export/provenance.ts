/**
 * A run's provenance (contracts/provenance.ts) as every export writes it: its study, run, Parallax
 * version and spec hash, whether any response is simulated, and for an imported run the format
 * and the provenance of the Parallax exports it came from.
 */
import { type ImportedFrom, provenanceSimulated, type StudyProvenance } from "../../contracts/provenance.js";
import type { RunRecord, TrialStore } from "../store/types.js";

/** The provider (and loader) prefix of an imported run's spec: `import:<format>`. */
const IMPORT_PREFIX = "import:";

export async function studyProvenance(store: TrialStore, run: RunRecord): Promise<StudyProvenance> {
  const origins = run.imported?.origins ?? [];
  return {
    study: run.study,
    run_id: run.id,
    simulated: (await store.hasSimulatedTrials(run.id)) || origins.some(provenanceSimulated),
    parallax_version: run.parallaxVersion,
    spec_hash: run.specHash,
    imported_from: importedFormat(run),
    origins,
  };
}

/** The format an imported run came from (its record, else its spec's providers); null for an executed run. */
export function importedFormat(run: Pick<RunRecord, "imported" | "spec">): string | null {
  if (run.imported) return run.imported.format;
  const provider = run.spec.models.find((m) => m.provider.startsWith(IMPORT_PREFIX))?.provider;
  return provider ? provider.slice(IMPORT_PREFIX.length) : null;
}

/** Whether the run's provenance says simulated without reading its trials (an import of simulated exports). */
export function importedSimulated(imported: ImportedFrom | undefined): boolean {
  return imported?.origins.some(provenanceSimulated) ?? false;
}

/** The provenance columns of every exported row (table-contract.ts PROVENANCE_CONTRACT). */
export function provenanceColumns(provenance: StudyProvenance): Record<string, string | null> {
  return {
    parallax_version: provenance.parallax_version,
    spec_hash: provenance.spec_hash,
    imported_from: provenance.imported_from,
  };
}

/** An imported run's source in words: the format, and the Parallax studies its exports came from. */
export function importedFromLine(provenance: StudyProvenance): string {
  const origins = provenance.origins.map(
    (o) =>
      `study ${o.study} (run ${o.run_id}, Parallax ${o.parallax_version}${provenanceSimulated(o) ? ", SIMULATED" : ""})`,
  );
  return `${provenance.imported_from ?? "nowhere"}${origins.length > 0 ? ` logs, exported from ${origins.join("; ")}` : " logs"}`;
}
