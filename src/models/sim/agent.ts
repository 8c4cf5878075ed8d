/**
 * The simulated panel as an agent (GAIA study): how a simulated respondent behaves in the agent
 * scaffolds' sub-calls, as the scaffolds declare them (kinds agent, planner, actor, rater,
 * executor, and whether the last tool call failed) and by the tools it is offered.
 *
 * A trajectory (one agent, actor or executor conversation) is planned from one key (the study
 * seed, the model, the attempt when sampling, the role and the conversation's opening messages):
 * - how many tool calls it makes before submitting: 1 + a draw below 2 x `tool_calls[role]`;
 * - whether one of them fails (`tool_error_rate`): that call is a real command that fails in the
 *   sandbox, before the last step (a mid-trajectory error); after seeing the error observation
 *   the agent recovers with probability `recovery[role]`, else it gives up and submits a guess;
 * - whether it answers right: sigmoid(ability - difficulty + effects[role]) (the planted model x
 *   scaffold accuracy; `effects` may be set per model).
 * Its tool calls are real: it reads the item's attachment (metadata.file_name) with bash, computes
 * with python, searches with web_search (S1: web_browser's search), and submits with submit_answer.
 * The rater (S2) judges the latest submitted answer right with probability
 * sigmoid(ability - difficulty + rater_skill) and calls submit_verdict accordingly; planners write
 * a short bulleted plan.
 * Provider-error flags, drawn per trial and execution (a retry is a fresh draw):
 * `serialisation_bug_rate` (a call after a tool result fails as provider_serialisation_bug),
 * `pdf_page_limit_rate` (an item with a .pdf attachment fails as pdf_page_limit) and
 * `zero_token_rate` (the first call is rejected with zero tokens, credit exhaustion).
 */
import type { Item } from "../../contracts/item.js";
import type { ChatMessage, ToolCall, ToolSpec } from "../../contracts/provider.js";
import type { AgentSubCallKind } from "../../contracts/sub-call.js";
import { ProviderError } from "../../core/errors.js";
import { sigmoid, uniform } from "./draws.js";
import { foldedText } from "../../core/folded-text.js";

export const AGENT_ROLES = ["agent", "actor", "executor"] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

export interface SimAgentOptions {
  /** Logit shift of the final answer, by role (S1 agent, S2 actor, S3 executor). */
  effects: Record<AgentRole, number>;
  /** Mean tool calls before submitting, by role. */
  toolCalls: Record<AgentRole, number>;
  /** Probability that a trajectory has a mid-trajectory tool error. */
  toolErrorRate: number;
  /** Probability of recovering from it, by role. */
  recovery: Record<AgentRole, number>;
  /** Logit shift of the rater's judgement relative to answering. */
  raterSkill: number;
  serialisationBugRate: number;
  pdfPageLimitRate: number;
  zeroTokenRate: number;
}

/** Defaults in the direction of the paper's behavioural signatures (section 4.3). */
export const SIM_AGENT_DEFAULTS: SimAgentOptions = {
  effects: { agent: 0, actor: 0, executor: 0 },
  toolCalls: { agent: 4, actor: 2, executor: 1.5 },
  toolErrorRate: 0.25,
  recovery: { agent: 0.4, actor: 0.6, executor: 0.5 },
  raterSkill: 0.5,
  serialisationBugRate: 0,
  pdfPageLimitRate: 0,
  zeroTokenRate: 0,
};

/** What the agent behaviour needs from the panel (provider.ts). */
export interface SimAgentContext {
  options: SimAgentOptions;
  ability: number;
  /** The respondent's stream (seeds, model, attempt when sampling). */
  stream: string;
  execution: number;
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  item?: { item: Item; difficulty: number };
  /** The conversation ends with the result of a failed tool call (as the scaffold declares). */
  lastToolFailed: boolean;
}

export interface SimAgentReply {
  text: string;
  toolCalls?: ToolCall[];
}

/** The reply of an agent-kind call; throws the planted provider errors. */
export function simAgentReply(kind: AgentSubCallKind, context: SimAgentContext): SimAgentReply {
  injectProviderErrors(context);
  if (kind === "planner") return { text: planText(context) };
  if (kind === "rater") return raterReply(context);
  return actReply(kind as AgentRole, context);
}

function trialKey(context: SimAgentContext): string {
  return `${context.stream}|${context.item?.item.id ?? "?"}`;
}

function injectProviderErrors(context: SimAgentContext): void {
  const { options, messages } = context;
  const key = `${trialKey(context)}|exec${context.execution}`;
  const first = !messages.some((m) => m.role === "assistant");
  if (first && uniform(`${key}|zero`) < options.zeroTokenRate) {
    throw new ProviderError(
      "sim: the request was rejected before the model ran: credit balance is too low",
      "zero_token_rejection",
      { retryable: false },
    );
  }
  const file = attachmentName(context.item?.item);
  if (file?.toLowerCase().endsWith(".pdf") && uniform(`${key}|pdf`) < options.pdfPageLimitRate) {
    throw new ProviderError("sim: a maximum of 100 PDF pages may be provided", "pdf_page_limit", { retryable: false });
  }
  const afterTool = messages[messages.length - 1]?.role === "tool";
  if (afterTool && uniform(`${key}|bug|${messages.length}`) < options.serialisationBugRate) {
    throw new ProviderError(
      "sim: the SDK could not deserialise the provider's reply (unknown web_fetch_tool_result error code)",
      "provider_serialisation_bug",
      { retryable: false },
    );
  }
}

function planText(context: SimAgentContext): string {
  const file = attachmentName(context.item?.item);
  const steps = [
    "- Restate what the question asks and the answer format it requires.",
    file
      ? `- Open the attached file ${file} and extract the relevant values.`
      : "- Search for the facts the question needs.",
    "- Compute or look up the answer and check it against the question.",
    "- Submit only the bare value in the required format.",
  ];
  return steps.join("\n");
}

interface Trajectory {
  calls: number;
  errorAt: number | undefined;
  recovers: boolean;
  correct: boolean;
}

function plan(role: AgentRole, context: SimAgentContext): Trajectory {
  const { options } = context;
  // The opening messages (system + task, and the shared state for an actor) fix the trajectory.
  const opening = context.messages
    .filter((m) => m.role !== "assistant" && m.role !== "tool")
    .slice(0, 2)
    .map((m) => m.content)
    .join("\n");
  const key = `${trialKey(context)}|${role}|${opening}`;
  const calls = 1 + Math.floor(uniform(`${key}|calls`) * 2 * options.toolCalls[role]);
  const hasError = calls >= 1 && uniform(`${key}|error`) < options.toolErrorRate;
  const entry = context.item;
  const logit = entry ? context.ability - entry.difficulty + options.effects[role] : Number.NEGATIVE_INFINITY;
  return {
    calls,
    errorAt: hasError ? 1 + Math.floor(uniform(`${key}|errorAt`) * calls) : undefined,
    recovers: uniform(`${key}|recover`) < options.recovery[role],
    correct: uniform(`${key}|correct`) < sigmoid(logit),
  };
}

function actReply(role: AgentRole, context: SimAgentContext): SimAgentReply {
  const trajectory = plan(role, context);
  const done = context.messages.filter((m) => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0).length;
  const sawError = context.lastToolFailed;
  const offered = new Set(context.tools.map((t) => t.name));
  const id = `call_${done + 1}`;
  if (sawError && !trajectory.recovers) {
    return submit(
      id,
      "The tool failed and I cannot get the data another way; I will give my best guess.",
      guess(context),
    );
  }
  if (done < trajectory.calls && offered.size > 0) {
    const failing = trajectory.errorAt === done + 1;
    const call = failing ? failingCall(offered) : workingCall(done, offered, context.item?.item);
    if (call)
      return {
        text: failing ? "Let me look at my notes first." : "Let me check this with a tool.",
        toolCalls: [{ id, ...call }],
      };
  }
  return submit(id, "I have what I need.", trajectory.correct ? answerOf(context) : guess(context));
}

function submit(id: string, text: string, answer: string): SimAgentReply {
  return { text, toolCalls: [{ id, name: "submit_answer", arguments: JSON.stringify({ answer }) }] };
}

/** A real command that fails in the sandbox (a file that does not exist). */
function failingCall(offered: Set<string>): Omit<ToolCall, "id"> | undefined {
  if (offered.has("bash")) return { name: "bash", arguments: JSON.stringify({ cmd: "cat notes-from-yesterday.txt" }) };
  if (offered.has("python")) {
    return { name: "python", arguments: JSON.stringify({ code: "print(open('notes-from-yesterday.txt').read())" }) };
  }
  return undefined;
}

/** A useful-looking call: read the attachment, compute, or search, as the offered tools allow. */
function workingCall(step: number, offered: Set<string>, item: Item | undefined): Omit<ToolCall, "id"> | undefined {
  const file = attachmentName(item);
  const question = item?.stem ?? "";
  const options: Omit<ToolCall, "id">[] = [];
  if (file && offered.has("bash"))
    options.push({ name: "bash", arguments: JSON.stringify({ cmd: `head -c 2000 '${file}'` }) });
  if (file && offered.has("python")) {
    options.push({
      name: "python",
      arguments: JSON.stringify({
        code: `with open(${JSON.stringify(file)}) as f:\n    print(len(f.read().splitlines()))`,
      }),
    });
  }
  if (offered.has("python"))
    options.push({ name: "python", arguments: JSON.stringify({ code: "print(sum(range(10)))" }) });
  // Searched after computing: without a web backend a search is a tool error the agent must recover from.
  if (offered.has("web_search"))
    options.push({ name: "web_search", arguments: JSON.stringify({ query: keywords(question) }) });
  else if (offered.has("web_browser"))
    options.push({ name: "web_browser", arguments: JSON.stringify({ action: "search", query: keywords(question) }) });
  if (offered.has("bash")) options.push({ name: "bash", arguments: JSON.stringify({ cmd: "ls" }) });
  return options.length === 0 ? undefined : options[step % options.length];
}

function raterReply(context: SimAgentContext): SimAgentReply {
  const entry = context.item;
  const user = [...context.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  const gold = entry ? goldOf(entry.item) : undefined;
  // The latest answer is right when the state after the question names the gold answer last.
  const after = entry ? user.slice(user.indexOf(entry.item.stem) + entry.item.stem.length) : user;
  const right = gold !== undefined && lastMentionIsGold(after, gold);
  const key = `${trialKey(context)}|rater|${user}`;
  const logit = entry ? context.ability - entry.difficulty + context.options.raterSkill : 0;
  const judgedRight = uniform(key) < sigmoid(logit);
  const done = right === judgedRight;
  const reason = done
    ? "The answer addresses the question in the required format."
    : "The answer does not fit the evidence gathered; check the data again.";
  return {
    text: done ? "The answer looks right." : "More work is needed.",
    toolCalls: [{ id: "verdict_1", name: "submit_verdict", arguments: JSON.stringify({ done, reason }) }],
  };
}

function lastMentionIsGold(text: string, gold: string): boolean {
  const answers = [...text.matchAll(/answer[^:\n]*:\s*(.+)/gi)].map((m) => m[1].trim());
  const lastAnswer = answers[answers.length - 1];
  return lastAnswer !== undefined && foldedText(lastAnswer) === foldedText(gold);
}

function goldOf(item: Item): string | undefined {
  return item.goldText ?? (item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined);
}

function answerOf(context: SimAgentContext): string {
  return (context.item && goldOf(context.item.item)) ?? "unknown";
}

/** A wrong answer of the right shape: a number off by one, else a non-answer. */
function guess(context: SimAgentContext): string {
  const gold = context.item ? goldOf(context.item.item) : undefined;
  const number = gold === undefined ? Number.NaN : Number(gold.replace(/[$,%]/g, ""));
  return Number.isFinite(number) ? String(number + 1) : "unknown";
}

export function attachmentName(item: Item | undefined): string | undefined {
  const name = item?.metadata?.file_name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

function keywords(question: string): string {
  return question
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .split(/\s+/)
    .filter((w) => w.length > 3)
    .slice(0, 6)
    .join(" ");
}
