/** Opening a study directory for scoring: its store, its run and its items, checked against the run. */
import type { RenderContext } from "../../facets/render.js";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Condition } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import type { TaskInput } from "../../contracts/task.js";
import type { StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { hashValue } from "../../core/hash.js";
import { readSpecFile } from "../../core/spec-loader.js";
import { loadStudySpec } from "../../facets/validate.js";
import { loadSpecPlugins } from "../prepare/plugins.js";
import { openStore } from "../store/open.js";
import { eachTrial, trialPages } from "../store/pages.js";
import type { RunRecord, TrialRow, TrialStore } from "../store/types.js";
import { missingStudyError, openStoredStudy } from "../store/stored-study.js";
import type { PreparedStudy } from "../prepare/study.js";

export interface ScoringContext {
  dir: string;
  store: TrialStore;
  run: RunRecord;
  study: PreparedStudy;
  /** How today's code renders a trial's task (default renderTrialTask; tests substitute a changed rendering). */
  render?: (item: Item, condition: Condition, context?: RenderContext) => TaskInput;
}

export const SCORING_PAGE = 500;

/**
 * Opens the store and the run's study as the store records it (items, pools, plugins; never the
 * benchmark sources). `specPath`: another spec of the same benchmarks whose scoring section to
 * use (judges added after the run).
 */
export async function openScoringContext(dir: string, specPath?: string): Promise<ScoringContext> {
  const store = await openStore(dir);
  try {
    const run = await store.getRun();
    if (!run) throw new InputError(`${dir} holds no run yet`);
    if (run.imported) {
      throw new InputError(
        `${dir}: run '${run.id}' was imported from ${run.imported.format} logs, which carry no items to score`,
      );
    }
    const spec = specPath === undefined ? undefined : await scoringSpec(specPath, run);
    const refuse = (missing: string) => missingStudyError(dir, run, missing, "scoring");
    const study = await openStoredStudy(store, run, refuse, spec ? { spec } : {});
    return { dir, store, run, study };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** A spec given to `score --spec`, its plugins loaded: it must declare the run's benchmarks as the run did. */
async function scoringSpec(specPath: string, run: RunRecord): Promise<{ spec: StudySpec; specDir: string }> {
  if (!existsSync(specPath)) throw new InputError(`${specPath} does not exist`);
  const file = readSpecFile(specPath);
  await loadSpecPlugins(file);
  const { spec } = loadStudySpec(file);
  if (hashValue(spec.benchmarks) !== hashValue(run.spec.benchmarks)) {
    throw new InputError(
      `${specPath}: its benchmarks differ from those of run '${run.id}'; pass the spec the run used (its scoring may change)`,
    );
  }
  return { spec, specDir: dirname(resolve(specPath)) };
}

export function finishedTrials(store: TrialStore, runId: string): AsyncGenerator<TrialRow> {
  return eachTrial(store, runId, { status: ["finished"], pageSize: SCORING_PAGE });
}

export function finishedPages(store: TrialStore, runId: string): AsyncGenerator<TrialRow[]> {
  return trialPages(store, runId, { status: ["finished"], pageSize: SCORING_PAGE });
}
