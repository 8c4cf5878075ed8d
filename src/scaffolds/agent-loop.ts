/**
 * The tool loop the agent scaffolds share (GAIA study, App. C): the model is offered tools, each
 * tool call it makes runs in the trial's toolbox and comes back as a tool message, until it calls
 * the finishing tool (`submit_answer`, or the rater's `submit_verdict`) or runs out of steps.
 * Every model call and every tool call is a recorded sub-call (ScaffoldContext.call / callTool).
 */
import type { ChatMessage, GenerationParams, ToolSpec } from "../contracts/provider.js";
import type { AgentSubCallKind } from "../contracts/sub-call.js";
import type { TaskInput } from "../contracts/task.js";
import type { Toolbox, ToolResult } from "../contracts/tool.js";
import { InputError } from "../core/errors.js";
import { renderTask } from "./prompt.js";
import type { ScaffoldContext } from "./types.js";

/** Opens the observation of a failed tool call. */
export const TOOL_ERROR_PREFIX = "Tool error:";

/** Sent when the model answers in plain text instead of calling a tool (the loop goes on). */
export const AGENT_CONTINUE =
  "Please continue working on the task with the tools available. When you have the final answer, call submit_answer with it.";

/** The tools S2's actor and S3's executor get (App. C.1); S1 has its own surface (agent-react.ts). */
export const AGENT_TOOLS = ["bash", "python", "web_search", "text_editor", "submit_answer"] as const;

/**
 * The specs of the tools among `names` that the toolbox offers (a tool the run did not register,
 * e.g. web search without a backend, is simply not offered).
 */
export function offeredSpecs(toolbox: Toolbox | undefined, names: readonly string[]): ToolSpec[] {
  return (toolbox?.specs() ?? []).filter((spec) => names.includes(spec.name));
}

/** The text a model sees for one tool result: the output, or the error first when the call failed. */
export function toolObservation(result: ToolResult): string {
  if (result.error === undefined) return result.output;
  return result.output === ""
    ? `${TOOL_ERROR_PREFIX} ${result.error}`
    : `${TOOL_ERROR_PREFIX} ${result.error}\n${result.output}`;
}

/** The task as an agent receives it: the rendered question plus the files in its work dir. */
export function agentTask(task: TaskInput, attachments: readonly string[] = []): string {
  if (attachments.length === 0) return renderTask(task);
  const files = attachments.map((name) => `- ${name}`).join("\n");
  return `${renderTask(task)}\n\nFiles for this task, in your working directory:\n${files}`;
}

export interface ToolLoop {
  /** The role of the model sub-calls ("agent", "actor", "executor", "rater"), declared as their kind. */
  role: AgentSubCallKind;
  /** The conversation so far; the loop appends to it. */
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxSteps: number;
  params: Partial<GenerationParams>;
  /** The tool whose call ends the loop. */
  finish: "submit_answer" | "submit_verdict";
  /** Sent after a plain-text reply; without it a plain-text reply ends the loop. */
  nudge?: string;
}

export interface ToolLoopResult {
  answer?: string;
  verdict?: { done: boolean; reason: string };
  /** Model calls made. */
  steps: number;
  /** The last reply's text. */
  lastText: string;
}

/** Runs the loop; a tool error is an observation for the model, never an exception. */
export async function runToolLoop(context: ScaffoldContext, loop: ToolLoop): Promise<ToolLoopResult> {
  const callTool = context.callTool;
  if (!callTool) throw new InputError(`the ${loop.role} of an agent scaffold needs a toolbox, and none was given`);
  let lastText = "";
  // Whether the conversation ends with the result of a failed tool call (declared on the next call).
  let lastToolFailed = false;
  for (let step = 1; step <= loop.maxSteps; step++) {
    const reply = await context.call(loop.role, [...loop.messages], loop.params, loop.tools, {
      kind: loop.role,
      lastToolFailed,
    });
    lastText = reply.text;
    const toolCalls = reply.toolCalls ?? [];
    loop.messages.push({ role: "assistant", content: reply.text, ...(toolCalls.length ? { toolCalls } : {}) });
    if (toolCalls.length === 0) {
      if (!loop.nudge) return { steps: step, lastText };
      loop.messages.push({ role: "user", content: loop.nudge });
      lastToolFailed = false;
      continue;
    }
    let finished: ToolLoopResult | undefined;
    // Every call of the reply gets its result (the providers require an answer to each call id).
    for (const toolCall of toolCalls) {
      const result = await callTool(loop.role, toolCall);
      loop.messages.push({ role: "tool", toolCallId: toolCall.id, content: toolObservation(result) });
      lastToolFailed = result.error !== undefined;
      if (finished || toolCall.name !== loop.finish || result.error !== undefined) continue;
      if (result.answer !== undefined) finished = { answer: result.answer, steps: step, lastText };
      if (result.verdict !== undefined) finished = { verdict: result.verdict, steps: step, lastText };
    }
    if (finished) return finished;
  }
  return { steps: loop.maxSteps, lastText };
}

/** The scorer's reading of a submitted answer (an "Answer:" line); empty when none was submitted. */
export function submittedText(answer: string | undefined): string {
  return answer === undefined ? "" : `Answer: ${answer}`;
}
