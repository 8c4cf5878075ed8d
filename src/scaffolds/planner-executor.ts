import { lazySchema } from "../contracts/lazy-schema.js";
import { AGENT_CONTINUE, offeredSpecs, AGENT_TOOLS, agentTask, runToolLoop, submittedText } from "./agent-loop.js";
import { callParams, intRange, intSetting, scaffoldSettings } from "./settings.js";
import type { Scaffold } from "./types.js";

/**
 * S3 of the GAIA study, Planner-then-Executor (section 3.3, App. C.2): a planning call with no
 * tools writes a plan; the executor then starts from a fresh context holding the task and the
 * plan, and works with the tools until it submits. Same model for both phases.
 */
export const PLANNER_EXECUTOR_DEFAULT_STEPS = 30;

export const S3_PLANNER_PROMPT =
  "You are the planner, your job is to evaluate the question you receive and create a detailed bulleted plan for the executor. You will restate the format requirements from the question so the executor does not miss them. You do not have tools, do not execute the plan, and do not answer the question. You will only provide the plan.";

export const S3_EXECUTOR_PROMPT =
  "You are the executor. You will receive a detailed plan from the planner. You will follow this plan to find an answer to the provided question. Your response will be in the format provided in the question. Return only the bare value matching the format specified in the question.";

/** Heads the plan in the executor's fresh context. */
export const PLAN_HEADING = "Plan from the planner:";

export const plannerExecutorScaffold: Scaffold = {
  name: "planner_executor",
  settingsSchema: lazySchema(() => scaffoldSettings({ max_steps: intRange(1, 200) })),
  expectedCalls: (settings) =>
    1 + intSetting(settings, "max_steps", { fallback: PLANNER_EXECUTOR_DEFAULT_STEPS, min: 1, max: 200 }),
  tools: AGENT_TOOLS,
  async run(context, settings) {
    const { task, params, tools } = context;
    const maxSteps = intSetting(settings, "max_steps", { fallback: PLANNER_EXECUTOR_DEFAULT_STEPS, min: 1, max: 200 });
    const overrides = callParams(params, settings, "scaffolded");
    const system = (prompt: string) => [task.systemPrompt, prompt].filter(Boolean).join("\n\n");
    const question = agentTask(task, context.attachments);
    // The planner has no tools: none are offered on its call.
    const plan = await context.call(
      "planner",
      [
        { role: "system", content: system(S3_PLANNER_PROMPT) },
        { role: "user", content: question },
      ],
      overrides,
      undefined,
      { kind: "planner" },
    );
    const result = await runToolLoop(context, {
      role: "executor",
      messages: [
        { role: "system", content: system(S3_EXECUTOR_PROMPT) },
        { role: "user", content: `${question}\n\n${PLAN_HEADING}\n${plan.text}` },
      ],
      tools: offeredSpecs(tools, AGENT_TOOLS),
      maxSteps,
      params: overrides,
      finish: "submit_answer",
      nudge: AGENT_CONTINUE,
    });
    context.annotate?.({ submitted: result.answer !== undefined, steps: result.steps });
    return { finalText: submittedText(result.answer) };
  },
};
