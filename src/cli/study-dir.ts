import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.js";
import { isPostgresUrl, type OpenStoreOptions, openStore } from "../run/store/open.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";

/**
 * Opens a study's store and its run, with a clear error when there is none: a study directory
 * (its parallax.db), a SQLite file given to `run --store`, or a PostgreSQL URL.
 */
export async function openStudyDir(
  dir: string,
  options: OpenStoreOptions = {},
): Promise<{ store: TrialStore; run: RunRecord }> {
  const sqliteFile = existsSync(dir) && statSync(dir).isFile();
  if (!isPostgresUrl(dir) && !sqliteFile && !existsSync(join(dir, "parallax.db"))) {
    throw new InputError(
      `${dir} is not a study directory (no parallax.db); run 'parallax run SPEC --out ${dir}' first`,
    );
  }
  const store = await openStore(dir, options);
  const run = await store.getRun();
  if (!run) {
    await store.close();
    throw new InputError(`${dir} holds no run yet`);
  }
  return { store, run };
}
