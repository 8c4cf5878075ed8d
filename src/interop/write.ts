/**
 * Writing a planned import into a store, all or nothing. The run is saved first, then the trials
 * with their outcomes, calls and scores in batches of `IMPORT_BATCH` (each batch built as it is
 * written, so an import never holds all its calls). A study directory is built in a temporary
 * sibling and renamed into place only when every batch is written, so a failure leaves no
 * directory and no partial run. A PostgreSQL store must hold no run yet; each batch is its own
 * transactions there, so only a database failure (or a log changed during the import) can
 * leave a partial run: every error in the logs is found before the first write.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { InputError } from "../core/errors.js";
import { ensureDirectory } from "../core/output-files.js";
import { isPostgresUrl } from "../run/store/url.js";
import { openStore } from "../run/store/open.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";
import type { BuiltTrial } from "./study.js";
import { staleEntries } from "../core/stale.js";

/** The provenance file of an imported study directory. */
export const IMPORT_FILE = "import.json";

/** Trials written per batch: their calls (a log's prompts) are the most an import holds at once. */
export const IMPORT_BATCH = 1_000;

/** What is written: the run record, then its trials in batches. */
export interface ImportWrite {
  run: RunRecord;
  batches(size: number, write: (batch: BuiltTrial[]) => Promise<void>): Promise<void>;
}

/** Staging directories are `.parallax-import-PID.NAME`, beside the study directory NAME. */
export const STAGING_PREFIX = ".parallax-import-";

export interface ImportProvenance {
  format: string;
  files: string[];
  mapping: string | null;
  importedAt: string;
}

export async function writeImport(
  target: string,
  prepared: ImportWrite,
  provenance: ImportProvenance,
  batchSize: number = IMPORT_BATCH,
): Promise<void> {
  if (isPostgresUrl(target)) return writeToPostgres(target, prepared, batchSize);
  const dir = resolve(target);
  if (statSync(dir, { throwIfNoEntry: false })?.isFile()) {
    throw new InputError(`${target} is a file; import into a new study directory`);
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new InputError(`${target} is not empty; import into a new study directory`);
  }
  // The study directory's missing parents are created, as every output folder is.
  ensureDirectory(dirname(dir), "folder of the study directory");
  // A killed import left its staging directory: nothing in it was ever a study. Any import into
  // the same parent removes those whose process is gone, whatever study they were for.
  for (const stale of staleEntries(dirname(dir), STAGING_PREFIX)) rmSync(stale, { recursive: true, force: true });
  const staging = join(dirname(dir), `${STAGING_PREFIX}${process.pid}.${basename(dir)}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    const store = await openStore(staging);
    try {
      await writeAll(store, prepared, batchSize);
    } finally {
      await store.close();
    }
    writeFileSync(join(staging, IMPORT_FILE), `${JSON.stringify(provenance, null, 2)}\n`);
    if (existsSync(dir)) rmSync(dir, { recursive: true });
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

async function writeToPostgres(target: string, prepared: ImportWrite, batchSize: number): Promise<void> {
  const store = await openStore(target);
  try {
    const existing = await store.getRun();
    if (existing)
      throw new InputError(`the store already holds run '${existing.id}'; import into an empty schema (?schema=NAME)`);
    await writeAll(store, prepared, batchSize);
  } finally {
    await store.close();
  }
}

async function writeAll(store: TrialStore, prepared: ImportWrite, batchSize: number): Promise<void> {
  await store.saveRun(prepared.run);
  await prepared.batches(batchSize, async (batch) => {
    await store.addPlannedTrials(batch.map((b) => b.trial));
    await store.completeTrials(batch.map((b) => b.completion));
    await store.saveScores(batch.flatMap((b) => b.scores));
  });
}
