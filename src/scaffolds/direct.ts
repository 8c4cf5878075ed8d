import { renderTask, taskMessages } from "./prompt.js";
import { callParams } from "./settings.js";
import { withSystemPromptVariant } from "./system-prompt.js";
import type { Scaffold } from "./types.js";

/** One call: the task as the user message (benchmark instructions embedded, D-001). */
export const directScaffold: Scaffold = {
  name: "direct",
  expectedCalls: () => 1,
  async run({ task: raw, params, call }, settings) {
    const task = withSystemPromptVariant(raw);
    const response = await call("answer", taskMessages(task, renderTask(task)), callParams(params, settings, "direct"));
    return { finalText: response.text };
  },
};
