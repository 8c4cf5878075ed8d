/**
 * The scoring-path facet `scoring_path` (SafetyRepro §3): generate and extract the answer
 * (free_form), or rank the options by log-likelihood without generating (logprob).
 */
import type { Condition } from "../contracts/condition.js";
import { facetName } from "../contracts/condition.js";
import { isGreedy } from "./decoding.js";
import type { ConstraintCell, Facet, GridConstraint } from "./types.js";

export const SCORING_PATHS = ["free_form", "logprob"] as const;
export type ScoringPath = (typeof SCORING_PATHS)[number];

/**
 * SafetyRepro App. T, combination constraint (1): log-prob scoring ranks fixed candidates
 * deterministically, so sampling does not apply to it.
 */
export const LOGPROB_REQUIRES_GREEDY: GridConstraint = {
  name: "logprob requires greedy decoding",
  violation: ({ condition }) =>
    scoringPathOf(condition) === "logprob" && !isGreedy(condition)
      ? `scoring_path logprob with decoding ${facetName(condition.decoding!)}`
      : undefined,
  exclude: ({ condition }) => `{scoring_path: logprob, decoding: ${facetName(condition.decoding!)}}`,
};

/**
 * SafetyRepro App. T, combination constraint (2), as each loader declares it: a benchmark admits
 * only the scoring paths its loader lists in `meta.scoringPaths` (CrowS-Pairs: logprob only).
 */
export const BENCHMARK_SCORING_PATHS: GridConstraint = {
  name: "the benchmark admits only the scoring paths its loader declares",
  violation: ({ condition, benchmark }: ConstraintCell) => {
    const admitted = benchmark.meta.scoringPaths;
    const path = scoringPathOf(condition);
    return admitted && !admitted.includes(path)
      ? `benchmark '${benchmark.id}' (loader ${benchmark.loader}) admits only scoring_path ${admitted.join(", ")}, not ${path}`
      : undefined;
  },
  exclude: ({ condition, benchmark }) => `{benchmark: ${benchmark.id}, scoring_path: ${scoringPathOf(condition)}}`,
};

export const scoringPathFacet: Facet = {
  name: "scoring_path",
  description: "free_form (generate, then extract the answer) or logprob (rank the options by likelihood)",
  stage: "run",
  knownValues: () => SCORING_PATHS,
  constraints: [LOGPROB_REQUIRES_GREEDY, BENCHMARK_SCORING_PATHS],
};

/** The scoring path of a condition (free_form without the facet). */
export function scoringPathOf(condition: Condition): string {
  return condition.scoring_path === undefined ? "free_form" : facetName(condition.scoring_path);
}
