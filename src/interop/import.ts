/**
 * `parallax import FORMAT PATH...`: read, map, check everything, then write one run (all or
 * nothing), in batches: the samples are built again as they are written, never all held.
 */
import { resolve } from "node:path";
import { defaultMapping, loadMapping } from "./mapping.js";
import { importers } from "./registry.js";
import { type PlannedImport, planImport } from "./study.js";
import { IMPORT_BATCH, writeImport } from "./write.js";
import type { FileSeen } from "./types.js";
import type { ZipLimits } from "./zip.js";

export interface ImportOptions {
  format: string;
  paths: readonly string[];
  /** A new study directory, or a PostgreSQL URL of an empty schema. */
  target: string;
  mapping?: string;
  now?: Date;
  /** Caps on the inflated size of zipped logs (default `DEFAULT_ZIP_LIMITS`). */
  zipLimits?: ZipLimits;
  /** HELM: the split imported (default: test, else the run's only split). */
  split?: string;
  /** Trials written per batch (default `IMPORT_BATCH`). */
  batchSize?: number;
}

/** The import, with every file read or skipped (and why), in order. */
export type ImportResult = Omit<PlannedImport, "batches"> & { files: FileSeen[] };

export async function importLogs(options: ImportOptions): Promise<ImportResult> {
  const importer = importers.get(options.format);
  const mapping = options.mapping ? loadMapping(options.mapping) : defaultMapping();
  const files: FileSeen[] = [];
  const logs = await importer.read(options.paths, mapping, {
    zipLimits: options.zipLimits,
    split: options.split,
    onFile: (seen) => files.push(seen),
  });
  const { batches, ...planned } = await planImport(importer.name, logs, mapping, options.now);
  await writeImport(
    options.target,
    { run: planned.run, batches },
    {
      format: importer.name,
      files: options.paths.map((p) => resolve(p)),
      mapping: options.mapping ? resolve(options.mapping) : null,
      importedAt: planned.run.createdAt,
    },
    options.batchSize ?? IMPORT_BATCH,
  );
  return { ...planned, files };
}
