/**
 * The one function that renders the task a trial's model receives: the item changed by the
 * item-stage facets (the perturbation, before formatting, so it reaches every format, scaffold,
 * template and scoring path), then formatted in the condition's format, then the task stages in
 * order (the perturbation's task-level part, e.g. new option letters, and its record; then the
 * system-prompt variant), once, before any scaffold runs. The executor, the planner, rescoring,
 * `parallax items` and the propagation audit all call it, so they all see the same task.
 */
import type { Condition } from "../contracts/condition.js";
import type { Item } from "../contracts/item.js";
import type { TaskInput } from "../contracts/task.js";
import { toTaskInput } from "../datasets/format.js";
import { facetsAt } from "./registry.js";
import { type ItemStageResult, type RenderContext, TASK_STAGES } from "./types.js";

export type { RenderContext } from "./types.js";

export function renderTrialTask(item: Item, condition: Condition, context: RenderContext = {}): TaskInput {
  const { item: source, finishers } = itemStage(item, condition, context);
  let task = toTaskInput(source, condition);
  for (const stage of TASK_STAGES) {
    for (const facet of facetsAt(stage)) {
      const value = condition[facet.name];
      if (value === undefined) continue;
      const finish = finishers.get(facet.name);
      if (finish) task = finish(task);
      else if (facet.applyToTask) task = facet.applyToTask(task, value);
    }
  }
  return task;
}

/**
 * The item a trial's task is rendered from (the item after its perturbation): what a scorer must
 * compare the answer with, since a perturbation may move the gold option (choice reordering).
 */
export function trialItem(item: Item, condition: Condition, context: RenderContext = {}): Item {
  return itemStage(item, condition, context).item;
}

function itemStage(item: Item, condition: Condition, context: RenderContext) {
  let source = item;
  const finishers = new Map<string, ItemStageResult["finishTask"]>();
  for (const stage of TASK_STAGES) {
    for (const facet of facetsAt(stage)) {
      const value = condition[facet.name];
      if (value === undefined || !facet.applyToItem) continue;
      const result = facet.applyToItem(source, value, context);
      source = result.item;
      finishers.set(facet.name, result.finishTask);
    }
  }
  return { item: source, finishers };
}

const pools = new WeakMap<ReadonlyMap<string, Item>, Item[]>();

/** A benchmark's items as the render context's pool, built once per benchmark map. */
export function benchmarkPool(items: ReadonlyMap<string, Item> | undefined): Item[] {
  if (!items) return [];
  const known = pools.get(items);
  if (known) return known;
  const pool = [...items.values()];
  pools.set(items, pool);
  return pool;
}
