/** Opening a study directory for scoring: its store, its run and its items, checked against the run. */
import type { RenderContext } from "../../facets/render.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Condition } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import type { TaskInput } from "../../contracts/task.js";
import { InputError } from "../../core/errors.js";
import { openStore } from "../store/open.js";
import { eachTrial, trialPages } from "../store/pages.js";
import type { RunRecord, TrialRow, TrialStore } from "../store/types.js";
import { type PreparedStudy, prepareStudy } from "../study.js";

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
 * Opens the store and re-loads the study's items from its spec (DIR/spec.json unless another is
 * given); the item manifest must hash as it did at run time, so scores use the same items.
 */
export async function openScoringContext(dir: string, specPath?: string): Promise<ScoringContext> {
  const path = specPath ?? join(dir, "spec.json");
  if (!existsSync(path)) throw new InputError(`${path} does not exist; pass --spec with the study's spec`);
  const store = await openStore(dir);
  try {
    const run = await store.getRun();
    if (!run) throw new InputError(`${dir} holds no run yet`);
    const study = await prepareStudy(path);
    if (study.manifestHash !== run.manifestHash) {
      throw new InputError(
        `the items loaded from ${path} differ from those of run '${run.id}' (manifest hash); pass --spec with the spec the run used`,
      );
    }
    return { dir, store, run, study };
  } catch (error) {
    await store.close();
    throw error;
  }
}

export function finishedTrials(store: TrialStore, runId: string): AsyncGenerator<TrialRow> {
  return eachTrial(store, runId, { status: ["finished"], pageSize: SCORING_PAGE });
}

export function finishedPages(store: TrialStore, runId: string): AsyncGenerator<TrialRow[]> {
  return trialPages(store, runId, { status: ["finished"], pageSize: SCORING_PAGE });
}
