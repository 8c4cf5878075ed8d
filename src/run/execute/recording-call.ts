/**
 * The scaffold's call function: response cache lookup, the provider call, and a CallRecord
 * of every sub-call, failed or not, with its propagation audit.
 */
import type { GenerateRequest, GenerateResult } from "../../contracts/provider.js";
import type { CallRecord } from "../../contracts/trial.js";
import { ProviderError } from "../../core/errors.js";
import { costUsd, maxOutputTokens } from "../../models/pricing.js";
import { auditCall } from "../../scaffolds/propagation.js";
import type { ScaffoldCall } from "../../scaffolds/types.js";
import { type AgentLimits, checkAgentLimits, truncateToolTraces } from "./agent-limits.js";
import { BudgetExhausted, estimatedCallCost, mayHaveBeenPaid } from "./budget.js";
import { cacheKey } from "./cache-key.js";
import type { ModelRuntime, TrialAttempt, TrialContext } from "./types.js";

/** Whose calls a recording call makes: the trial's attempt, with the model that answers them. */
export type RecordedAttempt = Pick<TrialAttempt, "trial" | "execution" | "model" | "calls" | "task"> & {
  options: Pick<TrialContext, "store" | "cache" | "abortSignal" | "budget">;
};

export function recordingCall(
  attempt: RecordedAttempt,
  recording: {
    /** Audit what of the task reached the call (false for judge calls, which are not the subject's). */
    audit: boolean;
    /** Agent trials: the per-trial limits, checked before each call, and when the trial started. */
    agent?: { limits?: AgentLimits; startedMs: number };
  },
): ScaffoldCall {
  const { trial, execution, model, calls, options, task } = attempt;
  const { audit, agent } = recording;
  return async (role, fullMessages, overrides, tools, does) => {
    if (agent) checkAgentLimits(agent.limits, calls, agent.startedMs);
    // Above the context limit the oldest tool traces go first (GAIA section 3.6).
    const contextTokens = agent?.limits?.contextTokens;
    const truncation = contextTokens === undefined ? undefined : truncateToolTraces(fullMessages, contextTokens);
    const messages = truncation?.messages ?? fullMessages;
    const params = { ...model.params, ...overrides };
    const request: GenerateRequest = {
      model: model.spec.model,
      messages,
      params,
      attempt: trial.attempt,
      execution,
      // Names the call within the run: batch mode's custom id is derived from it.
      callId: `${trial.id}:${execution}:${calls.length + 1}`,
      ...(tools?.length ? { tools } : {}),
      ...(does ? { subCall: does } : {}),
    };
    // The simulated panel is deterministic and free: caching its replies would only cost writes.
    // The key (a hash of the whole request) is made only for a call the cache may serve.
    const key =
      options.cache && !model.provider.simulated
        ? cacheKey(model, { messages, params, attempt: trial.attempt, tools })
        : null;
    const startedAt = new Date();
    const base = {
      trialId: trial.id,
      execution,
      seq: calls.length + 1,
      role,
      messages,
      startedAt: startedAt.toISOString(),
      // What of the task reached this sub-call (options, system prompt, safety instructions).
      ...(audit ? { audit: auditCall(task, role, messages) } : {}),
      ...(truncation && truncation.dropped > 0
        ? {
            note: {
              truncated: {
                dropped: truncation.dropped,
                tokensBefore: truncation.tokensBefore,
                tokensAfter: truncation.tokensAfter,
              },
            },
          }
        : {}),
    };
    try {
      const hit = key === null ? undefined : await options.store.cacheGet(key);
      const result = hit ?? (await budgeted(options, model, request));
      if (key !== null && !hit) await options.store.cachePut(key, result);
      calls.push(
        callRecord(base, result, model, { cached: hit !== undefined, latencyMs: Date.now() - startedAt.getTime() }),
      );
      return result;
    } catch (error) {
      // Refused by the budget: nothing was sent, so there is no call to record.
      if (error instanceof BudgetExhausted) throw error;
      const bucket = error instanceof ProviderError ? error.bucket : "other";
      const message = error instanceof Error ? error.message : String(error);
      calls.push({
        ...base,
        paramsUsed: params,
        droppedParams: [],
        responseText: null,
        usage: { inputTokens: 0, outputTokens: 0 },
        costUsd: 0,
        latencyMs: Date.now() - startedAt.getTime(),
        cached: false,
        error: { bucket, message },
      });
      throw error;
    }
  };
}

/** The provider call, reserved in the run's shared budget before it is sent and settled after. */
function budgeted(
  options: Pick<TrialContext, "abortSignal" | "budget">,
  model: ModelRuntime,
  request: GenerateRequest,
): Promise<GenerateResult> {
  const send = () => model.provider.generate({ ...request, signal: options.abortSignal });
  if (!options.budget) return send();
  return options.budget.charged(
    estimatedCallCost(request.messages, request.params, model.price, maxOutputTokens(model.spec)),
    send,
    (result) => costUsd(result.usage, model.price).usd,
    (error) => mayHaveBeenPaid(error, options.abortSignal),
  );
}

function callRecord(
  base: Pick<CallRecord, "trialId" | "execution" | "seq" | "role" | "messages" | "startedAt" | "audit" | "note">,
  result: GenerateResult,
  model: ModelRuntime,
  served: { cached: boolean; latencyMs: number },
): CallRecord {
  const { cached, latencyMs } = served;
  return {
    ...base,
    paramsUsed: result.paramsUsed,
    droppedParams: result.droppedParams,
    responseText: result.text,
    toolCalls: result.toolCalls,
    finishReason: result.finishReason ?? null,
    usage: result.usage,
    // A cache hit costs nothing now, but the trial's cost is what its calls cost when made.
    costUsd: costUsd(result.usage, model.price).usd,
    latencyMs,
    cached,
    error: null,
    // Which model version the provider says answered (recorded on the trial as modelRevision),
    // and the provider batch that served the call in batch mode.
    ...(result.modelRevision || result.batchId
      ? {
          note: {
            ...base.note,
            ...(result.modelRevision ? { model_revision: result.modelRevision } : {}),
            ...(result.batchId ? { batch_id: result.batchId } : {}),
          },
        }
      : {}),
  };
}
