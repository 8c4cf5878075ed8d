import { scaffoldOf } from "../../facets/scaffold.js";
import type { Scorer, ScoreResult } from "../../scoring/types.js";
import { recordingCall } from "./recording-call.js";
import type { TrialAttempt } from "./types.js";

export interface ScoredRun {
  finalText: string;
  scored: ScoreResult;
}

/** The free-form path: the condition's scaffold runs, its final text is scored. */
export async function scaffoldTrial(attempt: TrialAttempt, scorer: Scorer): Promise<ScoredRun> {
  const { trial, execution, model, calls, options, item, task } = attempt;
  const { scaffold, settings } = scaffoldOf(trial.condition);
  const call = recordingCall(trial, execution, model, calls, options, task);
  // A scaffold's note (parsed decomposition, verdict, ...) belongs to its latest sub-call.
  const annotate = (note: Record<string, unknown>) => {
    const last = calls[calls.length - 1];
    if (last) last.note = { ...last.note, ...note };
  };
  const { finalText } = await scaffold.run({ task, params: model.params, call, annotate }, settings);
  return { finalText, scored: scorer.score(item, task, finalText) };
}
