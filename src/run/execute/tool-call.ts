/**
 * Tool calls as sub-calls: each call a scaffold makes through its toolbox is stored as a call
 * record of role "tool", so the trial transcript shows the whole trajectory. The record's note
 * holds the calling role, the tool name, its arguments, output, error, limit hit and duration.
 */
import type { ToolCall } from "../../contracts/provider.js";
import type { Toolbox, ToolResult } from "../../contracts/tool.js";
import type { CallRecord } from "../../contracts/trial.js";
import { SandboxFailure } from "../../core/errors.js";
import type { ScaffoldToolCall } from "../../scaffolds/types.js";
import type { TrialRow } from "../store/types.js";
import { type AgentLimits, checkAgentLimits } from "./agent-limits.js";
import type { TrialAttempt } from "./types.js";

export const TOOL_ROLE = "tool";

export function toolCallRecorder(
  attempt: Pick<TrialAttempt, "trial" | "execution" | "calls">,
  toolbox: Toolbox,
  agent: { limits?: AgentLimits; startedMs: number },
): ScaffoldToolCall {
  const { trial, execution, calls } = attempt;
  return async (callerRole: string, call: ToolCall): Promise<ToolResult> => {
    checkAgentLimits(agent.limits, calls, agent.startedMs);
    const startedAt = new Date();
    const result = await toolbox.invoke(call);
    calls.push(toolCallRecord({ trial, execution, seq: calls.length + 1 }, { callerRole, call, result, startedAt }));
    // The model never sees an observation the sandbox failed to produce: the trial errors.
    if (result.infrastructureError !== undefined) throw new SandboxFailure(call.name, result.infrastructureError);
    return result;
  };
}

/** Where the record sits (its trial, execution and place among the calls) and the tool call it records. */
function toolCallRecord(
  at: { trial: TrialRow; execution: number; seq: number },
  tool: { callerRole: string; call: ToolCall; result: ToolResult; startedAt: Date },
): CallRecord {
  const { trial, execution, seq } = at;
  const { callerRole, call, result, startedAt } = tool;
  return {
    trialId: trial.id,
    execution,
    seq,
    role: TOOL_ROLE,
    messages: [],
    paramsUsed: {},
    droppedParams: [],
    responseText: result.output,
    toolCalls: [call],
    finishReason: null,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    latencyMs: result.durationMs,
    cached: false,
    // A tool error is an observation for the model, not a failed sub-call: it lives in the note.
    error: null,
    startedAt: startedAt.toISOString(),
    note: {
      caller: callerRole,
      tool: call.name,
      arguments: call.arguments,
      output: result.output,
      error: result.error ?? null,
      limitHit: result.limitHit ?? null,
      ...(result.infrastructureError !== undefined ? { infrastructureError: result.infrastructureError } : {}),
      durationMs: result.durationMs,
      ...(result.answer !== undefined ? { answer: result.answer } : {}),
      ...(result.verdict !== undefined ? { verdict: result.verdict } : {}),
    },
  };
}
