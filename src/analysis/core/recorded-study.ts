/**
 * The run's study as its store records it (run/store/stored-study.ts), for what the analysis rows lack:
 * item metadata, the gold options as formatted, the audit's items. Never re-read from the
 * benchmark sources, so a study directory analyses the same wherever it is moved. Read once per
 * analysis (several readers ask for it).
 */
import type { RunRecord, TrialStore } from "../../run/store/types.js";
import { missingStudyError, openStoredStudy } from "../../run/store/stored-study.js";
import type { PreparedStudy } from "../../run/prepare/study.js";
import { drawnPools } from "../../run/prepare/exemplars.js";

export type RecordedStudy = PreparedStudy | { unavailable: string };

/** The last study read (one analysis reads it several times; a process rarely analyses two). */
let last: { store: TrialStore; key: string; study: Promise<RecordedStudy> } | undefined;

/**
 * The study of `run`: an imported run has no items (its logs carry none), which the readers say;
 * a run recorded before its store kept the study is refused, naming what it lacks and the command
 * that stores it.
 */
export function recordedStudy(dir: string, store: TrialStore, run: RunRecord): Promise<RecordedStudy> {
  const key = [dir, run.id, run.specHash, run.manifestHash].join("\u0000");
  if (last?.store !== store || last.key !== key) last = { store, key, study: read(dir, store, run) };
  return last.study;
}

/** Drops the study read last: its items and pools are not held while the analyses run. */
export function releaseRecordedStudy(): void {
  last = undefined;
}

async function read(dir: string, store: TrialStore, run: RunRecord): Promise<RecordedStudy> {
  if (run.imported) return { unavailable: `an imported run (${run.imported.format} logs carry no items)` };
  const study = await openStoredStudy(store, run, (missing) => missingStudyError(dir, run, missing, "the analysis"));
  // The trials read their pools only through the few-shot draws: the drawn exemplars, as the run
  // holds them, not whole pools (SafetyRepro's ToxiGen and BBQ pools are about 70 MB live).
  return { ...study, exemplars: drawnPools(study.spec, study.exemplars) };
}
