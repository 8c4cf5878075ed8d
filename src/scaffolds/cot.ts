import { lazySchema } from "../contracts/lazy-schema.js";
import { renderTask, taskMessages } from "./prompt.js";
import { callParams, scaffoldSettings } from "./settings.js";
import type { Scaffold } from "./types.js";

/**
 * The reasoning-elicitation prefix: the only difference from direct (ScaffoldSafety 6.1: same
 * system prompt, options and answer format), so CoT isolates reasoning length from decomposition.
 */
export const COT_PREFIX =
  "Before answering, think the question through step by step and write out your reasoning. " +
  "Then give your final answer in the format requested below.";

export const cotScaffold: Scaffold = {
  name: "cot",
  settingsSchema: lazySchema(() => scaffoldSettings()),
  expectedCalls: () => 1,
  async run({ task, params, call }, settings) {
    const body = `${COT_PREFIX}\n\n${renderTask(task)}`;
    const response = await call("reason", taskMessages(task, body), callParams(params, settings, "scaffolded"));
    return { finalText: response.text };
  },
};
