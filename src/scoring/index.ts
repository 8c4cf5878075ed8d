// Public surface of the scoring layer (parallax-eval/scoring): the scorer and rubric registries,
// the scorer contracts and the helpers a scorer author needs (docs/EXTENDING.md).
export { goldSet, outcomeOfChoice } from "./gold.js";
export { type Rubric, judgeRubrics, rubricFor } from "./judge/rubrics.js";
export { logprobPrompt } from "./logprob-common.js";
export { extractMcAnswer, type McExtraction } from "./mc-extract.js";
export { classifyCompliance, type ComplianceClass, complianceOutcome } from "./refusal-pattern.js";
export { type DefaultScorerNames, defaultScorerName, JUDGE_SCORER, scorers } from "./registry.js";
export type {
  AnyScorer,
  JudgeFn,
  LogprobFn,
  LogprobOptions,
  LogprobRequestPlan,
  LogprobScorer,
  Scorer,
  ScoreResult,
  ScorerValidation,
} from "./types.js";
export { isLogprobScorer, validatedFor } from "./types.js";
export { lastAnswerLine } from "./exact-answer.js";
