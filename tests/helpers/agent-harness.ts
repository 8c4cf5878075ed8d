/**
 * Runs one agent scaffold outside the runner: its model calls go to a provider, its tool calls
 * to a real sandboxed toolbox (src/tools), and every sub-call is logged in order, so tests can
 * read the whole trajectory (golden transcripts, the SDK wire tests).
 */
import type { ChatMessage, Provider, ToolCall, ToolSpec } from "../../src/contracts/provider.js";
import type { TaskInput } from "../../src/contracts/task.js";
import type { ToolResult } from "../../src/contracts/tool.js";
import { scaffolds } from "../../src/scaffolds/registry.js";
import type { ScaffoldSettings } from "../../src/scaffolds/types.js";
import { agentRuntimeOf } from "../../src/run/execute/agent-runtime.js";

export type AgentStep =
  | { kind: "model"; role: string; messages: ChatMessage[]; tools: string[]; text: string; toolCalls: ToolCall[] }
  | { kind: "tool"; caller: string; call: ToolCall; result: ToolResult };

export interface AgentRun {
  finalText: string;
  steps: AgentStep[];
}

export async function runAgentScaffold(options: {
  scaffold: string;
  provider: Provider;
  model: string;
  task: TaskInput;
  settings?: ScaffoldSettings;
  attachments?: string[];
}): Promise<AgentRun> {
  const scaffold = scaffolds.get(options.scaffold);
  // The run's own toolbox factory: the scaffold's tools that are registered, in a sandbox.
  const toolbox = await agentRuntimeOf({}).toolbox(scaffold.tools ?? [], options.attachments ?? []);
  const steps: AgentStep[] = [];
  try {
    const call = async (role: string, messages: ChatMessage[], params = {}, tools?: ToolSpec[]) => {
      const result = await options.provider.generate({ model: options.model, messages, params, tools });
      steps.push({
        kind: "model",
        role,
        messages,
        tools: (tools ?? []).map((t) => t.name),
        text: result.text,
        toolCalls: result.toolCalls ?? [],
      });
      return result;
    };
    const callTool = async (caller: string, toolCall: ToolCall) => {
      const result = await toolbox.invoke(toolCall);
      steps.push({ kind: "tool", caller, call: toolCall, result });
      return result;
    };
    const attachments = (options.attachments ?? []).map((p) => p.split("/").pop()!);
    const run = await scaffold.run(
      { task: options.task, params: {}, call, tools: toolbox, callTool, attachments },
      options.settings ?? {},
    );
    return { finalText: run.finalText, steps };
  } finally {
    await toolbox.dispose();
  }
}

/** A GAIA-like open-ended task for the agent tests (our own text). */
export function agentTask(question: string): TaskInput {
  return {
    itemId: "agent-1",
    benchmark: "agents",
    format: "oe",
    question,
    answerInstruction: 'Give your final answer on the last line in the form "Answer: X".',
    condition: {},
  };
}
