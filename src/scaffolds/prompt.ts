import type { ChatMessage } from "../contracts/provider.js";
import type { TaskInput } from "../contracts/task.js";
import { renderTemplatedTask } from "./templated-prompt.js";

/** The options as lettered lines ("A. text"), or undefined for an open-ended task. */
export function renderOptions(task: TaskInput): string | undefined {
  if (!task.options || !task.validLetters) return undefined;
  return task.options.map((option, index) => `${task.validLetters![index]}. ${option}`).join("\n");
}

/**
 * The task as one user-message body: instructions, question, options, answer format; or, for a
 * task with a prompt template or few-shot exemplars, that template's rendering (templated-prompt.ts).
 */
export function renderTask(task: TaskInput): string {
  if (task.template || (task.fewShot && task.fewShot.exemplars.length > 0)) return renderTemplatedTask(task);
  const parts: string[] = [];
  if (task.benchmarkInstructions) parts.push(task.benchmarkInstructions);
  parts.push(`Question: ${task.question}`);
  const options = renderOptions(task);
  if (options) parts.push(options);
  parts.push(task.answerInstruction);
  return parts.join("\n\n");
}

/** System message (when the task has one) followed by the user message. */
export function taskMessages(task: TaskInput, userBody: string): ChatMessage[] {
  return withSystem(task.systemPrompt, [{ role: "user", content: userBody }]);
}

/** Prepends a system message when there is one. */
export function withSystem(system: string | undefined, messages: ChatMessage[]): ChatMessage[] {
  return system ? [{ role: "system", content: system }, ...messages] : messages;
}

interface FoundAnswer {
  value: string;
  /** A plain "Answer: X" line, which the scorer reads as is. */
  plain: boolean;
}

function findLastAnswer(text: string): FoundAnswer | undefined {
  const lines = [...text.matchAll(/^\s*(final\s+)?answer\s*:\s*(.+?)\s*$/gim)].map((m) => ({
    at: m.index,
    value: m[2],
    plain: m[1] === undefined,
  }));
  const finishes = [...text.matchAll(/finish\[([^\]\n]+)\]/gi)].map((m) => ({
    at: m.index,
    value: m[1].trim(),
    plain: false,
  }));
  const found = [...lines, ...finishes].sort((a, b) => a.at - b.at);
  return found.length > 0 ? found[found.length - 1] : undefined;
}

/**
 * The last answer a reply commits to: a "Final Answer: X" or "Answer: X" line, or a ReAct
 * "Finish[X]" action. Undefined when the reply gives none (a parse failure downstream).
 */
export function lastAnswer(text: string): string | undefined {
  return findLastAnswer(text)?.value;
}

/**
 * The reply as the scorer should read it: unchanged when its last answer is a plain "Answer: X"
 * line (or it has none), else with that line appended (the scorer reads the last "Answer:" line).
 */
export function withAnswerLine(text: string): string {
  const found = findLastAnswer(text);
  if (!found || found.plain) return text;
  return `${text.trimEnd()}\nAnswer: ${found.value}`;
}
