/**
 * The one function that renders the task a trial's model receives: the item in the
 * condition's format, then its perturbation (no perturbation facet yet), then the system-prompt
 * variant, once, before any scaffold runs. The executor, the planner, rescoring, `parallax items`
 * and the propagation audit all call it, so they all see the same task.
 */
import type { Condition } from "../contracts/condition.js";
import type { Item } from "../contracts/item.js";
import type { TaskInput } from "../contracts/task.js";
import { toTaskInput } from "../datasets/format.js";
import { facetsAt } from "./registry.js";
import { TASK_STAGES } from "./types.js";

export function renderTrialTask(item: Item, condition: Condition): TaskInput {
  let task = toTaskInput(item, condition);
  for (const stage of TASK_STAGES) {
    for (const facet of facetsAt(stage)) {
      const value = condition[facet.name];
      if (value !== undefined && facet.applyToTask) task = facet.applyToTask(task, value);
    }
  }
  return task;
}
