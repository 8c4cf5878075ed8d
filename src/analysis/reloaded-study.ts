/**
 * The run's study re-loaded from a study directory's spec copy (DIR/spec.json), for what the
 * analysis rows lack: item metadata, the gold letters as formatted, the audit's items. Checked
 * against the run's manifest hash, so items that changed since the run are never used. Loaded
 * once per analysis (the benchmarks' files are read once, not by each reader).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { RunRecord } from "../run/store/types.js";
import { type PreparedStudy, prepareStudy } from "../run/study.js";

export type ReloadedStudy = PreparedStudy | { unavailable: string };

/** The last study re-loaded (one analysis reads it several times; a process rarely analyses two). */
let last: { key: string; study: Promise<ReloadedStudy> } | undefined;

export function reloadStudy(dir: string, run: RunRecord): Promise<ReloadedStudy> {
  const path = join(dir, "spec.json");
  const key = [path, run.id, run.specHash, run.manifestHash].join("\u0000");
  if (last?.key !== key) last = { key, study: load(path, run) };
  return last.study;
}

async function load(path: string, run: RunRecord): Promise<ReloadedStudy> {
  if (!existsSync(path)) return { unavailable: `no ${path} to re-load the items from` };
  try {
    const study = await prepareStudy(path);
    if (study.manifestHash !== run.manifestHash)
      return { unavailable: `the items loaded from ${path} differ from the run's (manifest hash)` };
    return study;
  } catch (error) {
    return { unavailable: `the items could not be re-loaded from ${path} (${(error as Error).message})` };
  }
}
