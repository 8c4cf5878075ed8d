/**
 * Which trials `parallax run` judges, and what their judge calls are expected to add to the plan.
 * Light on imports: `plan` loads it (no statistics, store or provider SDK).
 */
import type { Condition } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import type { StudySpec } from "../../contracts/spec.js";
import type { TaskInput } from "../../contracts/task.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { renderTrialTask } from "../../facets/render.js";
import { scoringPathOf } from "../../facets/scoring-path.js";
import { rubricFor } from "../../scoring/judge/rubrics.js";

function loaderOf(spec: StudySpec, benchmarkId: string): string {
  return spec.benchmarks.find((b) => b.id === benchmarkId)?.loader ?? "inline";
}

/**
 * Whether a trial is judged at run time: the spec has judges, the task is open-ended, the path
 * free form, the loader names a rubric, and the spec does not name the benchmark's scorer.
 * `task` gives the trial's rendered task, when the caller has rendered it already.
 */
export function judgedAtRunTime(
  spec: StudySpec,
  trial: { benchmarkId: string; condition: Condition },
  item: Item,
  task: () => TaskInput = () => renderTrialTask(item, trial.condition),
): boolean {
  if ((spec.scoring?.judges ?? []).length === 0) return false;
  if ((spec.scoring?.per_benchmark?.[trial.benchmarkId] ?? spec.scoring?.default) !== undefined) return false;
  if (scoringPathOf(trial.condition) !== "free_form") return false;
  const rubricId = datasetLoaders.get(loaderOf(spec, trial.benchmarkId)).meta.judgeRubric;
  if (rubricId === null) return false;
  if (task().format === "mc") return false;
  // Reference-answer grading needs a reference; without one the item keeps its deterministic score.
  return !(rubricId === "factual_oe" && rubricFor(rubricId).reference(item) === "");
}

/**
 * Expected judge calls of one judged trial: the primary verdict, plus the validation verdict and
 * the configuration guess with the probabilities of their subsamples (an expectation for the
 * plan's estimate; the run draws the subsamples).
 */
export function expectedJudgeCalls(spec: StudySpec): number {
  const validation = spec.scoring?.validation ? spec.scoring.validation.fraction : 0;
  return 1 + validation + (spec.scoring?.blinding.guess_fraction ?? 0);
}
