import { meanOf } from "./aggregate.js";
import { sentenceShare } from "./text.js";
import type { CallAuditor } from "./types.js";

/**
 * Share (0..1) of the rendered task's system-prompt sentences that occur in the call's messages,
 * in any message (null: the task has no system prompt).
 */
export const systemPromptRetainedAuditor: CallAuditor<number> = {
  name: "system_prompt_retained",
  check: ({ task, haystack }) => sentenceShare(task.systemPrompt, haystack),
  callColumns: [
    { name: "system_prompt_retained", type: "number", what: "share of the system prompt's sentences in the call" },
  ],
  callValues: (value) => ({ system_prompt_retained: value }),
  trialColumns: [
    { name: "system_prompt_retained_mean", type: "number", what: "mean share of the system prompt retained per call" },
  ],
  trialValues: (values) => ({ system_prompt_retained_mean: meanOf(values) }),
};
