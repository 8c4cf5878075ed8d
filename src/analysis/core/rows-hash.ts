/**
 * The rows hash of a study's analysed table (inputs.ts `rowsHash`), computed a store page at a
 * time: `parallax report` checks its stored analysis against the store without loading the whole
 * table, so its memory stays flat in the trial count. The rows come from the same page builder as
 * `loadScoredStudyTable` (table.ts `scoredTablePages`), so the digest is the same. A caller that
 * reads the store's pages anyway (the report's scan for its trial cells) feeds them to
 * `rowsHasher`, so the run is read once for both.
 */
import { arrayHasher } from "../../core/hash.js";
import type { RunRecord, TrialStore } from "../../run/store/types.js";
import {
  type AnalysisRow,
  chosenScorer,
  RUN_TIME_SCORER,
  requireScorer,
  type ScoredTablePage,
  scoredTablePages,
  unscoredRow,
} from "./table.js";

/**
 * Trials per store page while hashing: a page (its trials, calls and rows) is garbage once hashed,
 * and a small one dies in V8's young generation. Larger pages outlived scavenges, were promoted
 * (or V8 pretenured their allocation sites), and old space filled with dead pages until a major
 * GC, so report's peak RSS grew with the trial count (docs/PERFORMANCE.md).
 */
const HASH_PAGE_SIZE = 50;

/** Hashes one scorer's rows of the scored table's pages, fed in store order (`scoredTablePages`). */
export interface RowsHasher {
  add(page: ScoredTablePage): void;
  /** The digest of the rows fed; a scorer the run does not hold is refused, as the loader refuses it. */
  digest(): string;
}

/** `rowsHash` of `loadStudyTable(store, run, path, scorer)`'s rows, from the pages fed to it. */
export function rowsHasher(path: string, scorer?: string): RowsHasher {
  const hasher = arrayHasher();
  const add = (rows: readonly AnalysisRow[]) => {
    for (const row of rows) hasher.add(row);
  };
  // Only run-time rows exist unless a scorer is named (chosenScorer on a table with run-time rows).
  const wanted = scorer ?? RUN_TIME_SCORER;
  const stored = new Set<string>();
  let analysed = 0;
  return {
    add(page) {
      analysed += page.runTime.length;
      for (const name of page.newScorers) stored.add(name);
      if (wanted === RUN_TIME_SCORER) add(page.runTime);
      // Until the scorer is first seen, its rows are the run-time rows unscored (as the loader fills them in).
      else add(page.byScorer.get(wanted) ?? page.runTime.map((r) => unscoredRow(r, wanted)));
    },
    digest() {
      // The scorers the loaded table would hold: none without rows, else run-time first, then the stored ones.
      const scorers = analysed === 0 ? [] : [RUN_TIME_SCORER, ...[...stored].sort()];
      requireScorer({ kind: "study", path }, scorers, chosenScorer(scorers, scorer));
      return hasher.digest();
    },
  };
}

/**
 * `rowsHash(await loadStudyTable(store, run, path, scorer))`, without holding the table: a
 * scorer the run does not hold is refused with the same message.
 */
export async function storedRowsHash(
  store: TrialStore,
  run: RunRecord,
  path: string,
  scorer?: string,
): Promise<string> {
  const hasher = rowsHasher(path, scorer);
  for await (const page of scoredTablePages(store, run, HASH_PAGE_SIZE)) hasher.add(page);
  return hasher.digest();
}
