import { lazySchema } from "../contracts/lazy-schema.js";
import { AGENT_CONTINUE, offeredSpecs, agentTask, runToolLoop, submittedText } from "./agent-loop.js";
import { withSystem } from "./prompt.js";
import { callParams, intRange, intSetting, scaffoldSettings } from "./settings.js";
import type { Scaffold } from "./types.js";

/**
 * S1 of the GAIA study (section 3.3): the single-agent ReAct loop with tools, the `inspect_evals`
 * GAIA baseline. The paper does not reproduce its prompt (App. C): the system message below
 * follows Inspect's default basic-agent wording, with submit_answer as the submit tool. Its tool
 * surface is the baseline's (§3.3: bash, python and the stateful web_browser, no web_search and
 * no text editor), unlike S2/S3 (section 6: the tool-surface confound of s1 contrasts).
 */
export const AGENT_REACT_DEFAULT_STEPS = 30;

export const AGENT_REACT_SYSTEM = [
  "You are a helpful assistant attempting to submit the correct answer. You have several functions available to help with finding the answer. Each message may perform one function call. You will see the result of the function right after sending the message. If you need to perform multiple actions, you can always send more messages with subsequent function calls. Do some reasoning before your actions, describing what function calls you are going to use and how they fit into your plan.",
  "When you have completed the task and have an answer, call the submit_answer() function to report it.",
].join("\n\n");

export const AGENT_REACT_TOOLS = ["bash", "python", "web_browser", "submit_answer"] as const;

export const agentReactScaffold: Scaffold = {
  name: "agent_react",
  settingsSchema: lazySchema(() => scaffoldSettings({ max_steps: intRange(1, 200) })),
  expectedCalls: (settings) =>
    intSetting(settings, "max_steps", { fallback: AGENT_REACT_DEFAULT_STEPS, min: 1, max: 200 }),
  tools: AGENT_REACT_TOOLS,
  async run(context, settings) {
    const { task, params, tools } = context;
    const maxSteps = intSetting(settings, "max_steps", { fallback: AGENT_REACT_DEFAULT_STEPS, min: 1, max: 200 });
    const system = [task.systemPrompt, AGENT_REACT_SYSTEM].filter(Boolean).join("\n\n");
    const result = await runToolLoop(context, {
      role: "agent",
      messages: withSystem(system, [{ role: "user", content: agentTask(task, context.attachments) }]),
      tools: offeredSpecs(tools, AGENT_REACT_TOOLS),
      maxSteps,
      params: callParams(params, settings, "scaffolded"),
      finish: "submit_answer",
      nudge: AGENT_CONTINUE,
    });
    context.annotate?.({ submitted: result.answer !== undefined, steps: result.steps });
    return { finalText: submittedText(result.answer) };
  },
};
