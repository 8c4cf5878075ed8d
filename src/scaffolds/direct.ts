import { lazySchema } from "../contracts/lazy-schema.js";
import { renderTask, taskMessages } from "./prompt.js";
import { callParams, scaffoldSettings } from "./settings.js";
import type { Scaffold } from "./types.js";

/** One call: the task as the user message (benchmark instructions embedded, D-001). */
export const directScaffold: Scaffold = {
  name: "direct",
  settingsSchema: lazySchema(() => scaffoldSettings()),
  expectedCalls: () => 1,
  async run({ task, params, call }, settings) {
    const response = await call("answer", taskMessages(task, renderTask(task)), callParams(params, settings, "direct"));
    return { finalText: response.text };
  },
};
