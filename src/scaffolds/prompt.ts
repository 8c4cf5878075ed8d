import type { ChatMessage } from "../contracts/provider.js";
import type { TaskInput } from "../contracts/task.js";

/** The task as one user-message body: instructions, question, options, answer format. */
export function renderTask(task: TaskInput): string {
  const parts: string[] = [];
  if (task.benchmarkInstructions) parts.push(task.benchmarkInstructions);
  parts.push(`Question: ${task.question}`);
  if (task.options && task.validLetters) {
    parts.push(task.options.map((option, index) => `${task.validLetters![index]}. ${option}`).join("\n"));
  }
  parts.push(task.answerInstruction);
  return parts.join("\n\n");
}

/** System message (when the task has one) followed by the user message. */
export function taskMessages(task: TaskInput, userBody: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (task.systemPrompt) messages.push({ role: "system", content: task.systemPrompt });
  messages.push({ role: "user", content: userBody });
  return messages;
}
