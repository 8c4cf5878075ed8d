import { renderTask, taskMessages } from "./prompt.js";
import type { Scaffold } from "./types.js";

/** One call: the task as the user message (benchmark instructions embedded, D-001). */
export const directScaffold: Scaffold = {
  name: "direct",
  expectedCalls: () => 1,
  async run({ task, call }) {
    const response = await call("answer", taskMessages(task, renderTask(task)));
    return { finalText: response.text };
  },
};
