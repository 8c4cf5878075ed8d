/**
 * The tasks finished trials were sent, read back from the store for rescoring and judging.
 * Before anything is scored, each trial's stored task hash is compared with what today's code
 * renders: a study whose prompts changed since the run is refused unless the caller asks to
 * re-render. Trials stored before tasks were recorded (store migration 0004) have no stored
 * task; they are re-rendered and counted, so the caller can say so.
 */
import type { Item } from "../../contracts/item.js";
import type { TaskInput } from "../../contracts/task.js";
import { InputError } from "../../core/errors.js";
import { benchmarkPool, type RenderContext, renderTrialTask, trialItem } from "../../facets/render.js";
import type { TrialRow } from "../store/types.js";
import { taskHash } from "../execute/task-record.js";
import { finishedPages, type ScoringContext } from "./context.js";

export interface TaskDrift {
  /** Finished trials with an item in the study. */
  checked: number;
  /** Trials whose stored task differs from today's rendering. */
  differ: number;
  /** Trials stored before tasks were recorded (re-rendered). */
  unrecorded: number;
}

export interface TaskChoice {
  /** Score with today's rendering instead of the stored task (`--rerender`). */
  rerender?: boolean;
}

function renderOf(context: ScoringContext): NonNullable<ScoringContext["render"]> {
  return context.render ?? renderTrialTask;
}

/**
 * A stored trial's item as the run saw it: the study's item (`source`, what its task is rendered
 * from, with its benchmark as the perturbations' pool) and the item as perturbed (`scored`, what
 * a scorer compares the answer with: choice reordering moves the gold option).
 */
export function trialItems(
  study: Pick<ScoringContext["study"], "items" | "exemplars">,
  trial: Pick<TrialRow, "benchmarkId" | "itemId" | "condition">,
): { source: Item; scored: Item; render: RenderContext } | undefined {
  const items = study.items.get(trial.benchmarkId);
  const source = items?.get(trial.itemId);
  if (!source) return undefined;
  const render = { pool: benchmarkPool(items), exemplars: study.exemplars?.get(trial.benchmarkId) };
  return { source, scored: trialItem(source, trial.condition, render), render };
}

/** Compares every finished trial's stored task with today's rendering of it. */
export async function taskDrift(context: ScoringContext): Promise<TaskDrift> {
  const { store, run, study } = context;
  const render = renderOf(context);
  const drift: TaskDrift = { checked: 0, differ: 0, unrecorded: 0 };
  for await (const page of finishedPages(store, run.id)) {
    for (const trial of page) {
      const items = trialItems(study, trial);
      if (!items) continue;
      drift.checked++;
      if (trial.taskHash === null) drift.unrecorded++;
      else if (trial.taskHash !== taskHash(render(items.source, trial.condition, items.render))) drift.differ++;
    }
  }
  return drift;
}

/** Refuses (exit 2) a study whose stored tasks differ from today's rendering, unless re-rendering was asked for. */
export async function checkTaskDrift(context: ScoringContext, choice: TaskChoice): Promise<TaskDrift> {
  const drift = await taskDrift(context);
  if (drift.differ > 0 && !choice.rerender) {
    throw new InputError(
      `${drift.differ} of ${drift.checked} finished trial(s) of run '${context.run.id}' were sent a task that differs ` +
        `from what this version of parallax renders (the prompt or format code changed since the run, which used ` +
        `parallax ${context.run.parallaxVersion}); scores would no longer describe what the model saw. ` +
        "Pass --rerender to score against today's rendering anyway, or score with the version that ran the study.",
    );
  }
  return drift;
}

/**
 * The task each trial of a page is scored against: the stored one, or today's rendering when
 * re-rendering was asked for or nothing was stored. Trials without an item are left out.
 */
export async function tasksOf(
  context: ScoringContext,
  page: readonly TrialRow[],
  choice: TaskChoice,
): Promise<Map<string, TaskInput>> {
  const render = renderOf(context);
  const hashes = choice.rerender ? [] : page.flatMap((t) => (t.taskHash === null ? [] : [t.taskHash]));
  const stored = hashes.length > 0 ? await context.store.getTasks(hashes) : new Map<string, TaskInput>();
  const out = new Map<string, TaskInput>();
  for (const trial of page) {
    const items = trialItems(context.study, trial);
    if (!items) continue;
    const kept = trial.taskHash === null ? undefined : stored.get(trial.taskHash);
    out.set(trial.id, kept ?? render(items.source, trial.condition, items.render));
  }
  return out;
}
