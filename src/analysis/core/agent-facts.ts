/**
 * The per-trial agent columns of the trials export (tool calls, tool errors, recovery, working
 * time, the token streams, cost, the failure bucket and the agent flags), read into the optional
 * `agent` block of an analysis row. A table without the agent-only columns has no block.
 */
import { AGENT_COLUMNS } from "../../run/export/trial-agent-columns.js";
import { InputError } from "../../core/errors.js";

export interface AgentFacts {
  toolCalls: number | null;
  toolErrors: number | null;
  /** A tool error happened before the last step of the trajectory. */
  toolErrorMidTrajectory: boolean | null;
  /** Recovered (a correct submission) after a tool error; null when there was no tool error. */
  recoveredAfterToolError: boolean | null;
  workingSeconds: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** Cost of the stored (latest) execution. */
  costUsd: number | null;
  /** Cost summed over every execution (retries included), when the table records it. */
  realizedCostUsd: number | null;
  failureBucket: string | null;
  /** Agent flags (provider_serialisation_bug, pdf_page_limit, zero_token_rejection, truncated, ...). */
  flags: string[];
}

/** Columns only an agent trial fills: one of them non-blank means the row has an agent block. */
export const AGENT_ONLY_COLUMNS = [
  // The trials export's agent columns (run/export/trial-agent-columns.ts), and the cost over all executions
  // a tidy table may add.
  ...AGENT_COLUMNS,
  "realized_cost_usd",
] as const;

/** Where a value came from, for an error message naming it (a tidy file's line). */
export interface ValueSource {
  file: string;
  line: number;
}

function blank(value: unknown): boolean {
  return value === null || value === undefined || String(value).trim() === "";
}

function numberOf(values: Record<string, unknown>, column: string, source?: ValueSource): number | null {
  const value = values[column];
  if (blank(value)) return null;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) fail(values, column, "a non-negative number", source);
  return n;
}

function booleanOf(values: Record<string, unknown>, column: string, source?: ValueSource): boolean | null {
  const value = values[column];
  if (blank(value)) return null;
  if (typeof value === "boolean") return value;
  const text = String(value).trim().toLowerCase();
  if (["1", "true", "yes"].includes(text)) return true;
  if (["0", "false", "no"].includes(text)) return false;
  return fail(values, column, "true or false (1 or 0; empty when not applicable)", source);
}

function fail(values: Record<string, unknown>, column: string, expected: string, source?: ValueSource): never {
  const where = source ? `${source.file}:${source.line}: ` : "";
  throw new InputError(`${where}column '${column}': expected ${expected}, found '${String(values[column])}'`);
}

/** The British and American spellings of a flag name the same flag. */
export function normalizeFlag(flag: string): string {
  return flag.trim().toLowerCase().replace("serialization", "serialisation");
}

/** The agent block of a row's values, or undefined when every agent-only column is absent or blank. */
export function agentFactsOf(values: Record<string, unknown>, source?: ValueSource): AgentFacts | undefined {
  // A non-agent trial in a table that has the columns leaves them blank.
  if (!AGENT_ONLY_COLUMNS.some((c) => !blank(values[c]))) return undefined;
  const flags = blank(values.agent_flags)
    ? []
    : String(values.agent_flags)
        .split(";")
        .map(normalizeFlag)
        .filter((f) => f !== "");
  return {
    toolCalls: numberOf(values, "tool_calls", source),
    toolErrors: numberOf(values, "tool_errors", source),
    toolErrorMidTrajectory: booleanOf(values, "tool_error_mid_trajectory", source),
    recoveredAfterToolError: booleanOf(values, "recovered_after_tool_error", source),
    workingSeconds: numberOf(values, "working_seconds", source),
    inputTokens: numberOf(values, "input_tokens", source),
    outputTokens: numberOf(values, "output_tokens", source),
    cacheReadTokens: numberOf(values, "cache_read_tokens", source),
    cacheWriteTokens: numberOf(values, "cache_write_tokens", source),
    costUsd: numberOf(values, "cost_usd", source),
    realizedCostUsd: numberOf(values, "realized_cost_usd", source),
    failureBucket: blank(values.failure_bucket) ? null : String(values.failure_bucket).trim(),
    flags,
  };
}
