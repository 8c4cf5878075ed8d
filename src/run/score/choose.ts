/** Which scorer scores a trial: from the spec's scoring section and the benchmark's loader. */
export { scoringPathOf } from "../../facets/scoring-path.js";
import type { Item } from "../../contracts/item.js";
import type { StudySpec } from "../../contracts/spec.js";
import type { TaskInput } from "../../contracts/task.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { scoringPathOf } from "../../facets/scoring-path.js";
import { defaultScorerName, scorers } from "../../scoring/registry.js";
import type { AnyScorer, LogprobOptions } from "../../scoring/types.js";
import type { TrialRow } from "../store/types.js";

export function loaderOf(spec: StudySpec, benchmarkId: string): string {
  return spec.benchmarks.find((b) => b.id === benchmarkId)?.loader ?? "inline";
}

/** The run-time scorer of each trial, from the spec's scoring section and the benchmark's loader. */
export function scorerChooser(
  spec: StudySpec,
): (trial: Pick<TrialRow, "benchmarkId" | "condition">, item: Item, task: TaskInput) => AnyScorer {
  const scoring = spec.scoring;
  return (trial, item, task) => {
    const loader = loaderOf(spec, trial.benchmarkId);
    const name = defaultScorerName({
      defaults: datasetLoaders.get(loader).meta.scorers,
      format: task.format,
      scoringPath: scoringPathOf(trial.condition),
      override: scoring?.per_benchmark?.[trial.benchmarkId] ?? scoring?.default,
      pairItem: typeof item.metadata.sent_more_index === "number" && item.goldIndex === undefined,
    });
    return scorers.get(name);
  };
}

export function logprobOptionsOf(spec: StudySpec): LogprobOptions {
  return {
    basis: spec.scoring?.logprob_basis ?? "text",
    lengthNormalise: spec.scoring?.length_normalise ?? false,
  };
}
