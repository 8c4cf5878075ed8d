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
    // Written out, not spread (see callRecord); the run's abort signal goes with it.
    const request: GenerateRequest = {
      model: model.spec.model,
      messages,
      params,
      attempt: trial.attempt,
      execution,
      // Names the call within the run: batch mode's custom id is derived from it.
      callId: `${trial.id}:${execution}:${calls.length + 1}`,
      signal: options.abortSignal,
    };
    if (tools?.length) request.tools = tools;
    if (does) request.subCall = does;
    // The simulated panel is deterministic and free: caching its replies would only cost writes.
    // The key (a hash of the whole request) is made only for a call the cache may serve.
    const key =
      options.cache && !model.provider.simulated
        ? cacheKey(model, { messages, params, attempt: trial.attempt, tools })
        : null;
    const startedAt = new Date();
    const base: CallBase = {
      trialId: trial.id,
      execution,
      seq: calls.length + 1,
      role,
      messages,
      startedAt: startedAt.toISOString(),
      // What of the task reached this sub-call (options, system prompt, safety instructions).
      audit: audit ? auditCall(task, role, messages) : undefined,
      note:
        truncation && truncation.dropped > 0
          ? {
              truncated: {
                dropped: truncation.dropped,
                tokensBefore: truncation.tokensBefore,
                tokensAfter: truncation.tokensAfter,
              },
            }
          : undefined,
    };
    try {
      const hit = key === null ? undefined : await options.store.cacheGet(key);
      const result = hit ?? (await budgeted(options, model, request));
      if (key !== null && !hit) await options.store.cachePut(key, result);
      calls.push(
        callRecord(base, {
          paramsUsed: result.paramsUsed,
          droppedParams: result.droppedParams,
          responseText: result.text,
          toolCalls: result.toolCalls,
          finishReason: result.finishReason ?? null,
          usage: result.usage,
          // A cache hit costs nothing now, but the trial's cost is what its calls cost when made.
          costUsd: costUsd(result.usage, model.price).usd,
          latencyMs: Date.now() - startedAt.getTime(),
          cached: hit !== undefined,
          error: null,
          // Which model version the provider says answered (recorded on the trial as modelRevision),
          // and the provider batch that served the call in batch mode.
          note:
            result.modelRevision || result.batchId
              ? {
                  ...base.note,
                  ...(result.modelRevision ? { model_revision: result.modelRevision } : {}),
                  ...(result.batchId ? { batch_id: result.batchId } : {}),
                }
              : base.note,
        }),
      );
      return result;
    } catch (error) {
      // Refused by the budget: nothing was sent, so there is no call to record.
      if (error instanceof BudgetExhausted) throw error;
      const bucket = error instanceof ProviderError ? error.bucket : "other";
      const message = error instanceof Error ? error.message : String(error);
      calls.push(
        callRecord(base, {
          paramsUsed: params,
          droppedParams: [],
          responseText: null,
          usage: { inputTokens: 0, outputTokens: 0 },
          costUsd: 0,
          latencyMs: Date.now() - startedAt.getTime(),
          cached: false,
          error: { bucket, message },
          note: base.note,
        }),
      );
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
  const send = () => model.provider.generate(request);
  if (!options.budget) return send();
  return options.budget.charged(
    estimatedCallCost(request.messages, request.params, model.price, maxOutputTokens(model.spec)),
    send,
    (result) => costUsd(result.usage, model.price).usd,
    (error) => mayHaveBeenPaid(error, options.abortSignal),
  );
}

/** A sub-call's request side, known before it is sent. */
type CallBase = Pick<CallRecord, "trialId" | "execution" | "seq" | "role" | "messages" | "startedAt"> & {
  audit: CallRecord["audit"] | undefined;
  note: CallRecord["note"] | undefined;
};

/** What came back (or went wrong), and the call's note. */
type CallOutcome = Omit<CallRecord, keyof CallBase> & { note: CallRecord["note"] | undefined };

/**
 * A sub-call's record, written out property by property. A run makes hundreds of thousands: built
 * by spreading the request side and adding the rest, nearly every record got a hidden class (map)
 * of its own from V8, made anew in its old generation, and ScaffoldSafety's run promoted half as
 * much again to it. Written out, records of one kind share one.
 */
function callRecord(base: CallBase, outcome: CallOutcome): CallRecord {
  const record: CallRecord = {
    trialId: base.trialId,
    execution: base.execution,
    seq: base.seq,
    role: base.role,
    messages: base.messages,
    startedAt: base.startedAt,
    paramsUsed: outcome.paramsUsed,
    droppedParams: outcome.droppedParams,
    responseText: outcome.responseText,
    usage: outcome.usage,
    costUsd: outcome.costUsd,
    latencyMs: outcome.latencyMs,
    cached: outcome.cached,
    error: outcome.error,
  };
  // Present only when the outcome has them, as the error's record has no tool calls or finish reason.
  if ("toolCalls" in outcome) record.toolCalls = outcome.toolCalls;
  if ("finishReason" in outcome) record.finishReason = outcome.finishReason;
  if (base.audit !== undefined) record.audit = base.audit;
  if (outcome.note !== undefined) record.note = outcome.note;
  return record;
}
