/**
 * A facet: one axis of the condition grid (scaffold, format, system_prompt, scoring_path, ...).
 * Each facet declares the values it accepts, the settings a value may carry, and where it acts:
 * on the task a trial's model receives (in the order of TASK_STAGES) or on how the trial runs.
 */
import type { z } from "zod";
import type { FacetValue } from "../contracts/spec.js";
import type { TaskInput } from "../contracts/task.js";

/**
 * Where a facet acts. `format` renders the item into a task; the task stages then change that
 * task, in this order, inside renderTrialTask; `run` facets choose how the trial runs.
 */
export const TASK_STAGES = ["perturbation", "system_prompt"] as const;
export type FacetStage = "format" | (typeof TASK_STAGES)[number] | "run";

export interface Facet {
  name: string;
  /** One line for messages and docs. */
  description: string;
  stage: FacetStage;
  /** The value names this facet accepts (listed in the message when a spec uses another). */
  knownValues(): readonly string[];
  /** The settings a value may carry (everything but `name`); strict. Undefined: none allowed. */
  settingsSchema?(valueName: string): z.ZodType | undefined;
  /** Task stages other than `format`: the task with this facet's value applied. */
  applyToTask?(task: TaskInput, value: FacetValue): TaskInput;
}
