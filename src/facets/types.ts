/**
 * A facet: one axis of the condition grid (scaffold, format, system_prompt, scoring_path, ...).
 * Each facet declares the values it accepts, the settings a value may carry, and where it acts:
 * on the task a trial's model receives (in the order of TASK_STAGES) or on how the trial runs.
 */
import type { z } from "zod";
import type { Item } from "../contracts/item.js";
import type { Condition } from "../contracts/condition.js";
import type { FacetValue, StudySpec } from "../contracts/spec.js";
import type { TaskInput } from "../contracts/task.js";
import type { BenchmarkMeta } from "../datasets/types.js";

/**
 * Where a facet acts. `format` renders the item into a task; the task stages then change that
 * task, in this order, inside renderTrialTask; `run` facets choose how the trial runs.
 */
export const TASK_STAGES = ["perturbation", "few_shot", "template", "system_prompt"] as const;
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
  /**
   * Task stages that act on the ITEM, before it is formatted (the perturbation), so the change
   * reaches every format, scaffold and scoring path: the item to format, and the function that
   * finishes the formatted task at this facet's stage (in place of applyToTask).
   */
  applyToItem?(item: Item, value: FacetValue, context: RenderContext): ItemStageResult;
  /**
   * The grid values one spec value stands for (a perturbation family: its k slots x the declared
   * seeds); absent: the value itself. Applied by expandConditions before the facet product.
   */
  expandValue?(value: FacetValue): FacetValue[];
  /**
   * Accepts a value outside knownValues (a custom template with its `text`, a quantization
   * variant the models declare); its settings are then checked by settingsSchema(name).
   */
  acceptsCustom?(value: FacetValue): boolean;
  /**
   * The condition entries one spec value stands for, when not just {facet: value}: a stochastic
   * decoding setting is one condition per seed ({decoding, decoding_seed}).
   */
  expand?(value: FacetValue): Record<string, FacetValue>[];
  /** Condition keys `expand` adds beside the facet's own (export and analysis columns). */
  impliedColumns?: readonly string[];
  /**
   * Implied columns that number replicates nested in one value of this facet (a sampled decoding
   * setting's seeds; greedy has none): not a factor crossed with the others, so never a term of a
   * model. The analyses pool a value's replicates, clustered by case as every row is.
   */
  replicateColumns?: readonly string[];
  /** Checks against the rest of the spec (paths from the spec's root), run when the spec loads. */
  specProblems?(spec: StudySpec): FacetSpecProblem[];
  /** Validity constraints of the grid this facet declares (refused at plan; facets/constraints.ts). */
  constraints?: readonly GridConstraint[];
}

export interface FacetSpecProblem {
  path: (string | number)[];
  message: string;
}

/** What a constraint may look at: one expanded condition on one benchmark. */
export interface ConstraintCell {
  condition: Condition;
  benchmark: { id: string; loader: string; meta: BenchmarkMeta };
}

/**
 * A combination the design must leave out (SafetyRepro App. T "combination constraints"). The
 * spec expresses it in `conditions.exclude`; a grid that still holds a violating cell is refused.
 */
export interface GridConstraint {
  /** Named in the refusal, e.g. "logprob requires greedy decoding". */
  name: string;
  /** Why the cell violates it, or undefined when it does not. */
  violation(cell: ConstraintCell): string | undefined;
  /** The `conditions.exclude` entry that removes the violating cells (YAML flow syntax). */
  exclude(cell: ConstraintCell): string;
}

export interface ItemStageResult {
  item: Item;
  finishTask(task: TaskInput): TaskInput;
}

/** What rendering may need beyond the item and its condition. */
export interface RenderContext {
  /** The other items of the item's benchmark (perturbations that look up a partner item). */
  pool?: readonly Item[];
  /** The benchmark's few-shot exemplar pool (disjoint from its evaluated items). */
  exemplars?: readonly Item[];
}
