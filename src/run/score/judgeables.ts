/**
 * What a judge is shown: the finished open-ended, free-form trials, each with its UUID, its
 * rubric, the prompt it was sent (the stored task) and its sanitised response.
 */
import { basename } from "node:path";
import { type Condition, facetLabel, facetName } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import type { StudySpec } from "../../contracts/spec.js";
import type { TaskInput } from "../../contracts/task.js";
import type { PlannedTrial } from "../../contracts/trial.js";
import { hashValue } from "../../core/hash.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { type BlindingEntry, newUuid } from "../../scoring/blinding/seal.js";
import { sanitiseResponse } from "../../scoring/blinding/sanitise.js";
import { type Rubric, rubricFor } from "../../scoring/judge/rubrics.js";
import { conditionLabel } from "../prepare/conditions.js";
import type { TrialRow } from "../store/types.js";
import { loaderOf, scoringPathOf } from "./choose.js";
import { finishedPages, type ScoringContext } from "./context.js";
import { type TaskChoice, tasksOf, trialItems } from "./stored-tasks.js";

/** What a blinding entry records of a trial, in the entry's key order (the sealed mapping's text). */
export function blindedTrial(trial: PlannedTrial): Omit<BlindingEntry, "uuid"> {
  return {
    trialId: trial.id,
    model: trial.modelId,
    benchmark: trial.benchmarkId,
    itemId: trial.itemId,
    conditionHash: trial.conditionHash,
    configuration: conditionLabel(trial.condition),
  };
}

export interface Judgeable {
  entry: BlindingEntry;
  /** The trial's attempt (the response cache keys judge calls by it, as the run does). */
  attempt: number;
  item: Item;
  rubric: Rubric;
  prompt: string;
  /** The response as the subject gave it (the pattern classifier reads this). */
  raw: string;
  /** The sanitised response (all a judge sees of it). */
  response: string;
}

/** Which trials a judge scores: open-ended, free-form responses (MC and log-prob trials are scored deterministically). */
function judgedTrial(trial: TrialRow, spec: StudySpec, task: TaskInput): boolean {
  return (
    task.format !== "mc" &&
    scoringPathOf(trial.condition) === "free_form" &&
    datasetLoaders.get(loaderOf(spec, trial.benchmarkId)).meta.judgeRubric !== null
  );
}

/** Strings that would identify the model or configuration: removed from responses before judging. */
export function redactionList(spec: StudySpec, conditions: readonly Condition[]): string[] {
  const terms = spec.models.flatMap((m) => [m.id, m.model, basename(m.model), m.provider]);
  for (const condition of conditions) {
    for (const value of Object.values(condition)) terms.push(facetLabel(value), facetName(value));
    terms.push(hashValue(condition).slice(0, 12));
  }
  return [...terms, ...(spec.scoring?.blinding.redact ?? [])];
}

export async function collectJudgeables(context: ScoringContext, choice: TaskChoice): Promise<Judgeable[]> {
  const { store, run, study } = context;
  const redact = redactionList(study.spec, study.conditions);
  const out: Judgeable[] = [];
  for await (const page of finishedPages(store, run.id)) {
    const tasks = await tasksOf(context, page, choice);
    for (const trial of page) {
      const item = trialItems(study, trial)?.scored;
      const task = tasks.get(trial.id);
      if (!item || !task) continue;
      if (!judgedTrial(trial, study.spec, task)) continue;
      const rubric = rubricFor(
        datasetLoaders.get(loaderOf(study.spec, trial.benchmarkId)).meta.judgeRubric!,
        study.spec.scoring?.rubrics,
      );
      // Reference-answer grading needs a reference; without one the item cannot be judged.
      if (rubric.id === "factual_oe" && rubric.reference(item) === "") continue;
      const raw = trial.outcome?.finalAnswer ?? "";
      out.push({
        attempt: trial.attempt,
        entry: { uuid: newUuid(), ...blindedTrial(trial) },
        item,
        rubric,
        prompt: task.question,
        raw,
        response: sanitiseResponse(raw, redact),
      });
    }
  }
  return out;
}
