/**
 * The studies beside a study: the other folders of its parent that hold a study store sharing
 * items with it (same benchmark and item id), so the report can print the `parallax compare` and
 * `parallax profile` commands that pair them. Sibling stores are opened read-only.
 */
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { openStore, SQLITE_FILE_NAME } from "../run/store/open.js";
import type { TrialStore } from "../run/store/types.js";

/** A study folder beside this one and how many of this study's items it holds. */
export interface StudyBeside {
  dir: string;
  sharedItems: number;
}

/** More siblings than this are not opened: a folder of hundreds of studies gets no list. */
const MAX_SIBLINGS = 50;

/** The run's items as benchmark/item keys: its stored items, else its trials' (an import). */
async function itemKeys(store: TrialStore, runId: string): Promise<Set<string>> {
  const items = await store.listRunItems(runId);
  if (items.length > 0) return new Set(items.map((i) => `${i.benchmark}\u0000${i.id}`));
  const trials = await store.listTrials(runId);
  return new Set(trials.map((t) => `${t.benchmarkId}\u0000${t.itemId}`));
}

/**
 * The study folders beside `studyDir` (siblings in its parent folder) whose store shares at least
 * one item with this study's run, in name order. Nothing when `studyDir` holds no SQLite store
 * (a PostgreSQL study, a report written elsewhere); an unreadable sibling is passed over.
 */
export async function studiesBeside(studyDir: string, store: TrialStore, runId: string): Promise<StudyBeside[]> {
  const dir = resolve(studyDir);
  if (!existsSync(join(dir, SQLITE_FILE_NAME))) return [];
  const parent = dirname(dir);
  let siblings: string[];
  try {
    siblings = readdirSync(parent, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== basename(dir))
      .map((e) => join(parent, e.name))
      .filter((d) => existsSync(join(d, SQLITE_FILE_NAME)))
      .sort();
  } catch {
    return [];
  }
  if (siblings.length === 0 || siblings.length > MAX_SIBLINGS) return [];
  const own = await itemKeys(store, runId);
  const beside: StudyBeside[] = [];
  for (const sibling of siblings) {
    let other: TrialStore | undefined;
    try {
      other = await openStore(sibling, { readOnly: true, cacheKiB: 2048 });
      const run = await other.getRun();
      // The same run copied into another folder is not another study.
      if (!run || run.id === runId) continue;
      const keys = await itemKeys(other, run.id);
      let shared = 0;
      for (const k of keys) if (own.has(k)) shared++;
      if (shared > 0) beside.push({ dir: sibling, sharedItems: shared });
    } catch {
      // Not a readable study (a store of another version, a locked file): not listed.
    } finally {
      await other?.close();
    }
  }
  return beside;
}
