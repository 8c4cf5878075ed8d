import { ProviderError } from "../../core/errors.js";
import { costUsd } from "../../models/pricing.js";
import { renderTask } from "../../scaffolds/prompt.js";
import { encodeRaw } from "../../scoring/logprob-common.js";
import type { Item } from "../../contracts/item.js";
import type { TaskInput } from "../../contracts/task.js";
import type { LogprobRequestPlan, LogprobScorer } from "../../scoring/types.js";
import type { ScoredRun } from "./free-form.js";
import type { TrialAttempt } from "./types.js";
import { BudgetExhausted, mayHaveBeenPaid } from "./budget.js";
import { estimateTokens } from "../../core/tokens.js";

/**
 * The log-prob path (scoring_path: logprob): no generation. The rendered task (the same text the
 * free-form path sends, so a perturbation of the task reaches both) is the shared prompt, and one
 * continuationLogprobs call scores every continuation the scorer asks for. The call is recorded
 * (role "logprob") with the raw log-probabilities in its note, so `parallax score` can re-score it.
 */
/**
 * The exact prompt and continuations a log-prob trial scores: the rendered task (its system prompt
 * already the variant's) as the shared body, planned by the scorer. The F1 no-op audit rebuilds the
 * scorer-consumed bytes of stored trials with this same function.
 */
export function logprobRequestPlan(scorer: LogprobScorer, item: Item, task: TaskInput): LogprobRequestPlan {
  const body = task.systemPrompt ? `${task.systemPrompt}\n\n${renderTask(task)}` : renderTask(task);
  return scorer.plan(item, task, body);
}

export async function logprobTrial(attempt: TrialAttempt, scorer: LogprobScorer): Promise<ScoredRun> {
  const { trial, execution, model, calls, options, item, task } = attempt;
  const provider = model.provider;
  if (!provider.continuationLogprobs) {
    throw new ProviderError(`provider '${provider.name}' cannot score continuations`, "provider_error");
  }
  const plan = logprobRequestPlan(scorer, item, task);
  // The log-prob call is synchronous even in batch mode: it is paid at the synchronous price.
  const price = "syncPrice" in model ? model.syncPrice : model.price;
  const base = {
    trialId: trial.id,
    execution,
    seq: calls.length + 1,
    role: "logprob",
    messages: [{ role: "user" as const, content: plan.prompt }],
    paramsUsed: {},
    droppedParams: [],
    startedAt: new Date().toISOString(),
  };
  const started = Date.now();
  try {
    const request = {
      model: model.spec.model,
      prompt: plan.prompt,
      continuations: plan.continuations,
      signal: options.abortSignal,
    };
    const send = () => provider.continuationLogprobs!(request);
    // Reserved in the run's shared budget: the prompt and every continuation are input tokens.
    const estimate = costUsd({ inputTokens: logprobTokens(plan), outputTokens: 0 }, price).usd;
    const raw = options.budget
      ? await options.budget.charged(
          estimate,
          send,
          (r) => costUsd(r.usage, price).usd,
          (error) => mayHaveBeenPaid(error, options.abortSignal),
        )
      : await send();
    const scored = scorer.score(item, task, raw, options.logprobOptions ?? { basis: "text", lengthNormalise: false });
    calls.push({
      ...base,
      responseText: scored.parsedAnswer,
      finishReason: null,
      usage: raw.usage,
      costUsd: costUsd(raw.usage, price).usd,
      latencyMs: Date.now() - started,
      cached: false,
      error: null,
      note: {
        logprob: encodeRaw(raw),
        score_details: scored.details ?? null,
        ...(raw.modelRevision ? { model_revision: raw.modelRevision } : {}),
      },
    });
    return { finalText: scored.parsedAnswer ?? "", scored };
  } catch (error) {
    if (error instanceof BudgetExhausted) throw error;
    const bucket = error instanceof ProviderError ? error.bucket : "other";
    calls.push({
      ...base,
      responseText: null,
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      latencyMs: Date.now() - started,
      cached: false,
      error: { bucket, message: error instanceof Error ? error.message : String(error) },
    });
    throw error;
  }
}

/** The log-prob call's input tokens before it is made: the prompt with each continuation. */
function logprobTokens(plan: LogprobRequestPlan): number {
  return plan.continuations.reduce((sum, c) => sum + estimateTokens(plan.prompt + c), 0);
}
