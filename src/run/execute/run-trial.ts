/**
 * One trial's execution: render its task once, run the free-form or log-prob path, and hand
 * the calls and outcome to the commit (one store transaction). A trial aborted in flight is
 * not committed: it stays unfinished and runs again on resume.
 */
import type { TaskInput } from "../../contracts/task.js";
import type { CallRecord, TrialOutcome } from "../../contracts/trial.js";
import { ProviderError, SandboxFailure } from "../../core/errors.js";
import { benchmarkPool, renderTrialTask, trialItem } from "../../facets/render.js";
import { isLogprobScorer } from "../../scoring/types.js";
import type { TrialRow } from "../store/types.js";
import { storedTask } from "./task-record.js";
import { BudgetExhausted } from "./budget.js";
import { scaffoldTrial } from "./free-form.js";
import { logprobTrial } from "./logprob.js";
import { trialModel, trialModelRevision } from "./trial-model.js";
import type { ModelRuntime, TrialContext, TrialEvent } from "./types.js";

/** How a trial's calls ended, told before its commit: the caller may start the next trial then. */
export type CallsDone = { status: "abandoned" } | Pick<OutcomeCore, "status" | "failureBucket" | "errorMessage">;

export async function runTrial(
  trial: TrialRow,
  options: TrialContext,
  onCallsDone?: (done: CallsDone) => void,
): Promise<TrialEvent> {
  const attempted = await attemptTrial(trial, options);
  onCallsDone?.("abandoned" in attempted ? { status: "abandoned" } : attempted.core);
  if ("abandoned" in attempted) return attempted.abandoned;
  // Outside the attempt: a store failure while committing is not the trial's error. Recording
  // it as one would lose a paid answer and pay for it again on the retry.
  return complete(trial, options, attempted);
}

interface Attempted {
  model: ModelRuntime | undefined;
  calls: CallRecord[];
  started: number;
  task: TaskInput | undefined;
  core: OutcomeCore;
}

/** Runs the trial's calls and scores them; what to commit, or the event of a trial left unfinished. */
async function attemptTrial(trial: TrialRow, options: TrialContext): Promise<Attempted | { abandoned: TrialEvent }> {
  // The model as this condition runs it: its quantization variant and decoding setting.
  const declared = options.models.get(trial.modelId);
  const model = declared && trialModel(declared, trial.condition);
  const benchmarkItems = options.items.get(trial.benchmarkId);
  const original = benchmarkItems?.get(trial.itemId);
  const calls: CallRecord[] = [];
  const execution = trial.executions + 1;
  const started = Date.now();
  let task: TaskInput | undefined;
  const attempted = (core: OutcomeCore): Attempted => ({ model, calls, started, task, core });
  try {
    if (!model || !original) throw new Error(`trial ${trial.id} refers to a model or item that is not in the study`);
    const context = { pool: benchmarkPool(benchmarkItems), exemplars: options.exemplars?.get(trial.benchmarkId) };
    task = renderTrialTask(original, trial.condition, context);
    // Scored against the item as perturbed: a perturbation may move the gold option.
    const item = trialItem(original, trial.condition, context);
    const scorer = options.scorerFor?.(trial, item, task) ?? options.scorer;
    if (!scorer) throw new Error("executeTrials needs a scorer or scorerFor");
    const attempt = { trial, execution, model, calls, options, item, task };
    const { finalText, scored: deterministic } = isLogprobScorer(scorer)
      ? await logprobTrial(attempt, scorer)
      : await scaffoldTrial(attempt, scorer);
    // An open-ended answer the study judges is scored by its judge calls, made as sub-calls here.
    const { scored, scorer: scorerLabel } =
      !isLogprobScorer(scorer) && options.judging?.applies(trial.id)
        ? await options.judging.judge(attempt, finalText)
        : { scored: deterministic, scorer: `${scorer.name}@${scorer.version}` };
    return attempted({
      status: "finished",
      finalAnswer: finalText,
      parsedAnswer: scored.parsedAnswer,
      parseStatus: scored.parseStatus,
      score: scored.score,
      scorer: scorerLabel,
      failureBucket: null,
      errorMessage: null,
    });
  } catch (error) {
    // Stopped by the budget (nothing sent for the refused call) or an abort: left unfinished.
    if (options.abortSignal?.aborted || error instanceof BudgetExhausted)
      return { abandoned: { trialId: trial.id, status: "abandoned", costUsd: 0, calls: calls.length } };
    const bucket = error instanceof ProviderError || error instanceof SandboxFailure ? error.bucket : "other";
    return attempted({
      status: "errored",
      finalAnswer: null,
      parsedAnswer: null,
      parseStatus: "not_applicable",
      score: null,
      scorer: null,
      failureBucket: bucket,
      errorMessage: error instanceof Error ? error.message : String(error),
    });
  }
}

type OutcomeCore = Omit<
  TrialOutcome,
  "usage" | "costUsd" | "latencyMs" | "droppedParams" | "simulated" | "modelRevision"
>;

async function complete(trial: TrialRow, options: TrialContext, attempted: Attempted): Promise<TrialEvent> {
  const { model, calls, started, task, core } = attempted;
  const modelRevision = model ? await trialModelRevision(model, calls) : undefined;
  // Written out, not spread from `core`: see callRecord (recording-call.ts).
  const outcome: TrialOutcome = {
    status: core.status,
    finalAnswer: core.finalAnswer,
    parsedAnswer: core.parsedAnswer,
    parseStatus: core.parseStatus,
    score: core.score,
    scorer: core.scorer,
    failureBucket: core.failureBucket,
    errorMessage: core.errorMessage,
    usage: {
      inputTokens: calls.reduce((sum, c) => sum + c.usage.inputTokens, 0),
      outputTokens: calls.reduce((sum, c) => sum + c.usage.outputTokens, 0),
    },
    costUsd: calls.reduce((sum, c) => sum + c.costUsd, 0),
    latencyMs: Date.now() - started,
    droppedParams: uniqueDrops(calls),
    simulated: model?.provider.simulated ?? false,
  };
  if (modelRevision) outcome.modelRevision = modelRevision;
  // What was sent is stored with the outcome, in the same transaction.
  const written = await options.commit({
    trialId: trial.id,
    outcome,
    calls,
    task: task === undefined ? undefined : storedTask(task),
  });
  // A trial another worker finished first counts as neither finished nor errored here.
  const status = written ? core.status : "abandoned";
  const event: TrialEvent = { trialId: trial.id, status, costUsd: outcome.costUsd, calls: calls.length };
  if (status === "errored" && core.failureBucket) {
    event.failure = { bucket: core.failureBucket, message: core.errorMessage ?? "" };
  }
  return event;
}

function uniqueDrops(calls: CallRecord[]): TrialOutcome["droppedParams"] {
  const seen = new Map<string, TrialOutcome["droppedParams"][number]>();
  for (const call of calls) for (const drop of call.droppedParams) seen.set(drop.name, drop);
  return [...seen.values()];
}
