/**
 * The scoring-path facet `scoring_path` (SafetyRepro §3): generate and extract the answer
 * (free_form), or rank the options by log-likelihood without generating (logprob).
 */
import type { Condition } from "../contracts/condition.js";
import { facetName } from "../contracts/condition.js";
import type { Facet } from "./types.js";

export const SCORING_PATHS = ["free_form", "logprob"] as const;
export type ScoringPath = (typeof SCORING_PATHS)[number];

export const scoringPathFacet: Facet = {
  name: "scoring_path",
  description: "free_form (generate, then extract the answer) or logprob (rank the options by likelihood)",
  stage: "run",
  knownValues: () => SCORING_PATHS,
};

/** The scoring path of a condition (free_form without the facet). */
export function scoringPathOf(condition: Condition): string {
  return condition.scoring_path === undefined ? "free_form" : facetName(condition.scoring_path);
}
