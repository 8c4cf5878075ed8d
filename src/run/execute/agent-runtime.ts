/**
 * The agent part of a run: a sandboxed toolbox per agent trial (src/tools, with the item's
 * attachments, the spec's `agents` section: offered tools, sandbox limits, web backend) and the
 * spec's per-trial limits (`agent_limits`).
 */
import type { StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { scaffoldOf } from "../../facets/scaffold.js";
import { probeSandbox } from "../../tools/sandbox.js";
import { toolboxOptionsOf } from "../../tools/from-spec.js";
import { tools as registeredTools } from "../../tools/registry.js";
import { createToolbox } from "../../tools/toolbox.js";
import type { AgentLimits } from "./agent-limits.js";
import type { AgentRuntime } from "./types.js";
import type { PreparedStudy } from "../prepare/study.js";

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

export function agentRuntimeOf(
  spec: Partial<Pick<StudySpec, "agent_limits" | "agents">>,
  context: { specDir: string; env?: NodeJS.ProcessEnv } = { specDir: process.cwd() },
): AgentRuntime {
  // Built once per run (the web backend); each trial adds its own attachments.
  const shared = toolboxOptionsOf(spec.agents, context);
  const allowed = shared.tools ?? registeredTools.names();
  return {
    limits: agentLimitsOf(spec),
    // The scaffold's tools that the spec allows and the registry knows; the rest are not offered.
    toolbox: (names, attachments) =>
      createToolbox({
        ...shared,
        tools: names.filter((name) => registeredTools.has(name) && allowed.includes(name)),
        attachments,
      }),
  };
}

/** The scaffolds of the study's conditions that declare tools (they run tool calls in the sandbox). */
export function toolScaffolds(study: Pick<PreparedStudy, "conditions">): string[] {
  const names = study.conditions.map((c) => scaffoldOf(c).scaffold).filter((s) => s.tools !== undefined);
  return [...new Set(names.map((s) => s.name))];
}

/**
 * For `plan` and `run`, before any model is called: a study whose scaffolds declare tools needs a
 * sandbox that runs here (one trivial command in it), or every tool call would fail.
 */
export async function refuseWithoutSandbox(study: Pick<PreparedStudy, "conditions">): Promise<void> {
  const scaffolds = toolScaffolds(study);
  if (scaffolds.length === 0) return;
  const sandbox = await probeSandbox();
  if (!sandbox.ok) throw new InputError(`scaffold(s) ${scaffolds.join(", ")} use tools: ${sandbox.message}`);
}
