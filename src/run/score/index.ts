/**
 * The score stage (`parallax score`): its public surface. Each part lives in its own module
 * under scoring/: scorer choice (choose), opening a study (context), the stored tasks
 * (stored-tasks), re-scoring (rescore), judging under blinding (judgeables, judge-study,
 * judge-verdict, judge-agreement, guessing-round), the stored judgements (judgements) and
 * unblinding (unblind).
 */
export type { CellParseSummary } from "./cells.js";
export { logprobOptionsOf, scorerChooser, scoringPathOf } from "./choose.js";
export { openScoringContext, type ScoringContext } from "./context.js";
export { redactionList } from "./judgeables.js";
export { JUDGE_VERSION, type JudgeStudyOptions, type JudgeStudyResult, judgeStudy } from "./judge-study.js";
export {
  BLINDING_FILES,
  type BlindingSummary,
  type Judgements,
  readJudgements,
} from "./judgements.js";
export { type RescoreOptions, type RescoreResult, rescoreStudy } from "./rescore.js";
export { checkTaskDrift, type TaskDrift, taskDrift } from "./stored-tasks.js";
export { type UnblindResult, unblindStudy } from "./unblind.js";
export type { VerdictRecord } from "../store/types.js";
