/**
 * Per-trial limits of agent trials (GAIA study section 3.5-3.6) and the input truncation that
 * drops the oldest tool-call traces first when a call's input exceeds the context limit.
 */
import type { ChatMessage } from "../../contracts/provider.js";
import type { CallRecord } from "../../contracts/trial.js";
import { estimateTokens } from "../../core/tokens.js";

export interface AgentLimits {
  /** Input + output tokens over the trial's calls. */
  tokens?: number;
  /** Wall-clock seconds from the trial's start. */
  wallSeconds?: number;
  /** Messages the trial may produce: model replies plus tool results. */
  messages?: number;
  /** Dollars over the trial's calls. */
  costUsd?: number;
  /** A call's input is truncated (oldest tool traces first) above this many tokens. */
  contextTokens?: number;
}

export type AgentLimitName = "tokens" | "wall_time" | "messages" | "cost";

/** A per-trial limit reached: the trajectory ends there, with whatever answer it submitted (none: wrong). */
export class AgentLimitReached extends Error {
  constructor(readonly limit: AgentLimitName) {
    super(`agent trial stopped at its ${limit} limit`);
    this.name = "AgentLimitReached";
  }
}

/** Throws AgentLimitReached when the trial's calls so far have used up a limit. */
export function checkAgentLimits(
  limits: AgentLimits | undefined,
  calls: readonly CallRecord[],
  startedMs: number,
): void {
  if (!limits) return;
  const tokens = calls.reduce((sum, c) => sum + c.usage.inputTokens + c.usage.outputTokens, 0);
  const cost = calls.reduce((sum, c) => sum + c.costUsd, 0);
  if (limits.tokens !== undefined && tokens >= limits.tokens) throw new AgentLimitReached("tokens");
  if (limits.costUsd !== undefined && cost >= limits.costUsd) throw new AgentLimitReached("cost");
  if (limits.messages !== undefined && calls.length >= limits.messages) throw new AgentLimitReached("messages");
  if (limits.wallSeconds !== undefined && Date.now() - startedMs >= limits.wallSeconds * 1000) {
    throw new AgentLimitReached("wall_time");
  }
}

export interface Truncation {
  messages: ChatMessage[];
  /** Messages dropped (0: nothing was). */
  dropped: number;
  tokensBefore: number;
  tokensAfter: number;
}

function tokensOf(messages: readonly ChatMessage[]): number {
  return messages.reduce(
    (sum, m) => sum + estimateTokens(m.content) + estimateTokens(JSON.stringify(m.toolCalls ?? [])),
    0,
  );
}

/**
 * Drops whole tool traces (an assistant message that called tools and the tool results that
 * answer it), oldest first, until the input fits in `maxTokens` or no trace is left. The system
 * message, the task and plain turns are never dropped; a trace is dropped whole, so every
 * remaining tool result still answers a call the model sees.
 */
export function truncateToolTraces(messages: readonly ChatMessage[], maxTokens: number): Truncation {
  const tokensBefore = tokensOf(messages);
  let kept = [...messages];
  let tokens = tokensBefore;
  while (tokens > maxTokens) {
    const start = kept.findIndex((m) => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0);
    if (start < 0) break;
    let end = start + 1;
    while (end < kept.length && kept[end].role === "tool") end++;
    kept = [...kept.slice(0, start), ...kept.slice(end)];
    tokens = tokensOf(kept);
  }
  return { messages: kept, dropped: messages.length - kept.length, tokensBefore, tokensAfter: tokens };
}
