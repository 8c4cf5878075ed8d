/**
 * The agent part of a run: a sandboxed toolbox per agent trial (src/tools, with the item's
 * attachments) and the spec's per-trial limits (`agent_limits`).
 */
import type { StudySpec } from "../contracts/spec.js";
import { createToolbox } from "../tools/toolbox.js";
import { tools as registeredTools } from "../tools/registry.js";
import type { AgentLimits } from "./execute/agent-limits.js";
import type { AgentRuntime } from "./execute/types.js";

export function agentLimitsOf(spec: Pick<StudySpec, "agent_limits">): AgentLimits | undefined {
  const raw = spec.agent_limits;
  if (!raw) return undefined;
  return {
    tokens: raw.tokens,
    wallSeconds: raw.wall_seconds,
    messages: raw.messages,
    costUsd: raw.cost_usd,
    contextTokens: raw.context_tokens,
  };
}

export function agentRuntimeOf(spec: Pick<StudySpec, "agent_limits">): AgentRuntime {
  return {
    limits: agentLimitsOf(spec),
    // A scaffold's tool that is not registered here is not offered (its specs leave it out).
    toolbox: (names, attachments) =>
      createToolbox({ tools: names.filter((name) => registeredTools.has(name)), attachments }),
  };
}
