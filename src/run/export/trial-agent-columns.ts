/**
 * The agent columns of the trials export (GAIA study, section 3.5 and 4.3): per-trial aggregates
 * of an agent trial's stored sub-calls, read by the agent analyses. Computed over the calls of
 * the trial's latest execution (the one its outcome comes from). Every trial has them: a trial
 * without tools has 0 tool calls, no tool error and no flags.
 */
import { DEFAULT_SCAFFOLD, facetName } from "../../contracts/condition.js";
import { scaffolds } from "../../scaffolds/registry.js";
import { AGENT_CONTRACT } from "./table-contract.js";
import type { CallFacts, TrialRow } from "../store/types.js";

/**
 * Whether a trial ran an agent scaffold (one that declares tools): only those get the agent
 * columns, so a study without agents exports them blank and no analysis mistakes it for one.
 */
export function isAgentTrial(trial: Pick<TrialRow, "condition">): boolean {
  const name = facetName(trial.condition.scaffold ?? DEFAULT_SCAFFOLD);
  return scaffolds.has(name) && (scaffolds.get(name).tools?.length ?? 0) > 0;
}

/** The agent columns of a trial: its aggregates when it ran an agent scaffold, else none (blank). */
export function agentColumnsOf(trial: TrialRow, calls: readonly CallFacts[]): Partial<AgentColumns> {
  return isAgentTrial(trial) ? trialAgentColumns(trial, calls) : {};
}

export const AGENT_COLUMNS = AGENT_CONTRACT.map((c) => c.name);

/** Tools that end a trajectory rather than act: not counted as actions. */
const FINISHING_TOOLS = new Set(["submit_answer", "submit_verdict"]);

/** Call-error buckets that flag the unit (App. D); the robust slice drops provider_serialisation_bug. */
const FLAGGED_BUCKETS = new Set([
  "provider_serialisation_bug",
  "pdf_page_limit",
  "zero_token_rejection",
  "context_too_long",
]);

export type AgentColumns = Record<(typeof AGENT_CONTRACT)[number]["name"], number | boolean | string | null>;

export function trialAgentColumns(trial: TrialRow, allCalls: readonly CallFacts[]): AgentColumns {
  const latest = allCalls.reduce((max, c) => Math.max(max, c.execution), 0);
  const calls = allCalls.filter((c) => c.execution === latest);
  const tools = calls.filter((c) => c.role === "tool");
  const actions = tools.filter((c) => !FINISHING_TOOLS.has(String(c.note?.tool ?? "")));
  const errored = tools.filter((c) => c.note?.error != null);
  const lastSeq = calls.reduce((max, c) => Math.max(max, c.seq), 0);
  // Mid-trajectory: the trajectory went on after the failed tool call.
  const midError = errored.some((c) => c.seq < lastSeq);
  return {
    tool_calls: actions.length,
    tool_errors: errored.length,
    tool_error_mid_trajectory: midError,
    // Paper 4.3: an attempt with a mid-trajectory tool error that still produced a correct submission.
    recovered_after_tool_error: midError ? trial.outcome?.score === 1 : null,
    working_seconds: (trial.outcome?.latencyMs ?? 0) / 1000,
    cache_read_tokens: calls.reduce((sum, c) => sum + (c.usage.cacheReadTokens ?? 0), 0),
    cache_write_tokens: calls.reduce((sum, c) => sum + (c.usage.cacheWriteTokens ?? 0), 0),
    agent_flags: agentFlags(trial, calls).join(";") || null,
  };
}

/** The unit's flags, sorted: flagged failure buckets, truncation, and a per-trial limit reached. */
export function agentFlags(trial: TrialRow, calls: readonly CallFacts[]): string[] {
  const flags = new Set<string>();
  const bucket = trial.outcome?.failureBucket;
  if (bucket && FLAGGED_BUCKETS.has(bucket)) flags.add(bucket);
  for (const call of calls) {
    if (call.error && FLAGGED_BUCKETS.has(call.error.bucket)) flags.add(call.error.bucket);
    if (call.note?.truncated) flags.add("truncated");
    if (typeof call.note?.limit === "string") flags.add(`limit_${call.note.limit}`);
  }
  return [...flags].sort();
}
