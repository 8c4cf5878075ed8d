import { lazySchema } from "../contracts/lazy-schema.js";
import type { ChatMessage } from "../contracts/provider.js";
import { AGENT_CONTINUE, offeredSpecs, AGENT_TOOLS, agentTask, runToolLoop, submittedText } from "./agent-loop.js";
import { callParams, intRange, intSetting, scaffoldSettings } from "./settings.js";
import type { Scaffold, ScaffoldContext } from "./types.js";

/**
 * S2 of the GAIA study, Planner-Actor-Rater (section 3.3, App. C.1): three roles of the same
 * model share a task state. Each round the planner (no tools) writes a bulleted plan, the actor
 * follows it with tools until it submits an answer, and the rater reviews that answer and calls
 * submit_verdict: done ends the trial with the answer, otherwise its reason goes into the shared
 * state as a CONTINUE turn and the next round starts. After `max_rounds` the last answer stands.
 */
export const PAR_DEFAULT_ROUNDS = 3;
export const PAR_DEFAULT_ACTOR_STEPS = 15;
/** The rater gets a few calls to produce its verdict (it may answer in text first). */
export const PAR_RATER_STEPS = 3;

export const PAR_PLANNER_PROMPT =
  "You are the Advisor. Read the question and any prior actor and rater turns in the conversation. Produce a short bulleted plan of next steps for the Actor to execute. Do not attempt to solve the task yourself. Do not produce an answer. Do not call tools. If a prior plan exists and the rater said CONTINUE, revise the plan based on the rater's feedback and what the actor has already tried.";

export const PAR_ACTOR_PROMPT =
  'You are the Actor. You will find the answer to the question following the most recent bulleted plan. You will disregard any comments beginning with CONTINUE. Note any prior steps that successfully gathered information; build on them rather than redoing them. Do not repeat actions that previously failed. You have access to (bash, python, web_search, text_editor, submit_answer) use them as you see fit to find the answer, when you have your final answer you must use submit_answer. Your answer will be in the format provided in the original question. Do not use markdown formatting (bold, italics, code blocks, bullet points), do not prefix with "Answer:" or similar labels, do not add explanation. Return only the bare value matching the format specified in the question.';

export const PAR_RATER_PROMPT =
  "You are an evaluator. Review the most recent answer. Decide whether it correctly addresses the question and matches the format required. Call `submit_verdict` with `done=True` if the answer is correct and well-formatted, or `done=False` if more work is needed. When `done=False`, include a short reason explaining what is wrong.";

/** Heads the shared task state in each role's message. */
export const PAR_STATE_HEADING = "Turns so far:";

/** One role's message: the question, then the shared state (the turns of earlier roles). */
function withState(question: string, turns: readonly string[]): string {
  return turns.length === 0 ? question : `${question}\n\n${PAR_STATE_HEADING}\n${turns.join("\n\n")}`;
}

/** What the actor did, as a turn of the shared state: its tool calls, their outcome and its answer. */
function actorTurn(messages: readonly ChatMessage[], answer: string | undefined): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) lines.push(`- called ${call.name} ${call.arguments}`);
    if (message.role === "tool") lines.push(`  result: ${message.content.slice(0, 500)}`);
  }
  lines.push(answer === undefined ? "- no answer submitted" : `- submitted answer: ${answer}`);
  return `[Actor]\n${lines.join("\n")}`;
}

function system(context: ScaffoldContext, prompt: string): string {
  return [context.task.systemPrompt, prompt].filter(Boolean).join("\n\n");
}

export const plannerActorRaterScaffold: Scaffold = {
  name: "planner_actor_rater",
  settingsSchema: lazySchema(() =>
    scaffoldSettings({ max_rounds: intRange(1, 20), max_actor_steps: intRange(1, 200) }),
  ),
  expectedCalls: (settings) =>
    intSetting(settings, "max_rounds", { fallback: PAR_DEFAULT_ROUNDS, min: 1, max: 20 }) *
    (2 + intSetting(settings, "max_actor_steps", { fallback: PAR_DEFAULT_ACTOR_STEPS, min: 1, max: 200 })),
  tools: [...AGENT_TOOLS, "submit_verdict"],
  async run(context, settings) {
    const { task, params, tools } = context;
    const rounds = intSetting(settings, "max_rounds", { fallback: PAR_DEFAULT_ROUNDS, min: 1, max: 20 });
    const actorSteps = intSetting(settings, "max_actor_steps", { fallback: PAR_DEFAULT_ACTOR_STEPS, min: 1, max: 200 });
    const overrides = callParams(params, settings, "scaffolded");
    const question = agentTask(task, context.attachments);
    const turns: string[] = [];
    let answer: string | undefined;
    for (let round = 1; round <= rounds; round++) {
      const plan = await context.call(
        "planner",
        [
          { role: "system", content: system(context, PAR_PLANNER_PROMPT) },
          { role: "user", content: withState(question, turns) },
        ],
        overrides,
        undefined,
        { kind: "planner" },
      );
      turns.push(`[Planner]\n${plan.text}`);
      const actorMessages: ChatMessage[] = [
        { role: "system", content: system(context, PAR_ACTOR_PROMPT) },
        { role: "user", content: withState(question, turns) },
      ];
      const acted = await runToolLoop(context, {
        role: "actor",
        messages: actorMessages,
        tools: offeredSpecs(tools, AGENT_TOOLS),
        maxSteps: actorSteps,
        params: overrides,
        finish: "submit_answer",
        nudge: AGENT_CONTINUE,
      });
      if (acted.answer !== undefined) answer = acted.answer;
      turns.push(actorTurn(actorMessages.slice(2), acted.answer));
      const rated = await runToolLoop(context, {
        role: "rater",
        messages: [
          { role: "system", content: system(context, PAR_RATER_PROMPT) },
          { role: "user", content: withState(question, turns) },
        ],
        tools: offeredSpecs(tools, ["submit_verdict"]),
        maxSteps: PAR_RATER_STEPS,
        params: overrides,
        finish: "submit_verdict",
      });
      const verdict = rated.verdict ?? { done: false, reason: "the rater gave no verdict" };
      context.annotate?.({ round, verdict });
      if (verdict.done && answer !== undefined) break;
      turns.push(`[Rater]\nCONTINUE: ${verdict.reason}`);
    }
    return { finalText: submittedText(answer) };
  },
};
