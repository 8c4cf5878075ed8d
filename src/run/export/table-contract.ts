/**
 * The contract of the exported tables: every column of the trials and calls tables, in order,
 * with its type. The CSV and JSON-lines exports take their columns from here and the Parquet
 * export its types, so a column's type never depends on a study's data. Each per-call auditor
 * declares its own columns (scaffolds/audits); this module places them.
 */
import type { TableColumn } from "../../contracts/table-column.js";
import { callAuditors } from "../../scaffolds/audits/registry.js";

/** The trials table's own columns; the facet columns follow `condition_hash`. */
export const OBSERVATION_CONTRACT = [
  { name: "run_id", type: "text", what: "the run" },
  { name: "trial_id", type: "text", what: "the trial (a hash of model, condition, benchmark, item and attempt)" },
  { name: "model", type: "text", what: "model id of the spec" },
  { name: "benchmark", type: "text", what: "benchmark id of the spec" },
  { name: "item_id", type: "text", what: "item id within the benchmark" },
  { name: "condition_hash", type: "text", what: "hash of the condition (the facet values)" },
  { name: "attempt", type: "integer", what: "1-based attempt" },
  { name: "status", type: "text", what: "pending, finished or errored" },
  { name: "outcome", type: "number", what: "1 (correct/safe), 0, or null (errored or unscored)" },
  { name: "parse_status", type: "text", what: "ok, failed or not_applicable" },
  { name: "parsed_answer", type: "text", what: "the answer the scorer parsed" },
  { name: "failure_bucket", type: "text", what: "why an errored trial failed" },
  { name: "input_tokens", type: "integer", what: "input tokens over the trial's calls" },
  { name: "output_tokens", type: "integer", what: "output tokens over the trial's calls" },
  { name: "cost_usd", type: "number", what: "cost in US dollars" },
  { name: "latency_ms", type: "number", what: "wall time of the trial" },
  { name: "dropped_params", type: "text", what: "parameters the provider dropped, `;`-joined; null when none" },
  { name: "simulated", type: "boolean", what: "the response came from a simulated respondent" },
  { name: "model_revision", type: "text", what: "the weights' SHA-256 or the provider's model version" },
] as const satisfies readonly TableColumn[];

/** The study's provenance on every row of both tables (run/export/provenance.ts): constant within an export. */
export const PROVENANCE_CONTRACT = [
  { name: "parallax_version", type: "text", what: "the Parallax version that recorded the run (or imported it)" },
  { name: "spec_hash", type: "text", what: "hash of the run's spec" },
  { name: "imported_from", type: "text", what: "the format the run was imported from; null for an executed run" },
] as const satisfies readonly TableColumn[];

/** A trial's agent columns (trial-agent-columns.ts); null for a trial without an agent scaffold. */
export const AGENT_CONTRACT = [
  { name: "tool_calls", type: "integer", what: "tool calls that act (submissions excluded)" },
  { name: "tool_errors", type: "integer", what: "tool calls that failed" },
  { name: "tool_error_mid_trajectory", type: "boolean", what: "a tool call failed before the last step" },
  { name: "recovered_after_tool_error", type: "boolean", what: "correct after a mid-trajectory tool error" },
  { name: "working_seconds", type: "number", what: "the trial's wall time in seconds" },
  { name: "cache_read_tokens", type: "integer", what: "prompt-cache read tokens" },
  { name: "cache_write_tokens", type: "integer", what: "prompt-cache write tokens" },
  {
    name: "agent_flags",
    type: "text",
    what: "flags of the unit (failure buckets, truncation, limits), `;`-joined; null when none",
  },
] as const satisfies readonly TableColumn[];

/** The calls table's own columns, before the auditors'. */
export const CALL_CONTRACT = [
  { name: "trial_id", type: "text", what: "the trial the call belongs to" },
  { name: "execution", type: "integer", what: "which execution of the trial" },
  { name: "seq", type: "integer", what: "the call's place in the execution" },
  { name: "role", type: "text", what: "the sub-call's role (answer, critic, map-1, tool, judge, ...)" },
  { name: "messages", type: "text", what: "the messages sent (JSON)" },
  { name: "params_used", type: "text", what: "the generation parameters sent (JSON)" },
  { name: "dropped_params", type: "text", what: "the parameters the provider dropped (JSON list)" },
  { name: "response_text", type: "text", what: "the response" },
  { name: "finish_reason", type: "text", what: "why generation stopped" },
  { name: "input_tokens", type: "integer", what: "input tokens" },
  { name: "output_tokens", type: "integer", what: "output tokens" },
  { name: "cost_usd", type: "number", what: "cost in US dollars" },
  { name: "latency_ms", type: "number", what: "wall time of the call" },
  { name: "cached", type: "boolean", what: "answered from the response cache" },
  { name: "error_bucket", type: "text", what: "the error's bucket" },
  { name: "error_message", type: "text", what: "the error's message" },
  { name: "started_at", type: "text", what: "ISO-8601 UTC start time" },
  { name: "simulated", type: "boolean", what: "the trial's response came from a simulated respondent" },
] as const satisfies readonly TableColumn[];

/** The calls table's last column. */
const NOTE_COLUMN: TableColumn = { name: "note", type: "text", what: "what the scaffold or the import noted (JSON)" };

/** The trials table's per-call check aggregates: the call count, then each registered auditor's. */
export function trialAuditContract(): TableColumn[] {
  return [
    { name: "calls", type: "integer", what: "stored calls of the trial" },
    ...callAuditors().flatMap((a) => a.trialColumns),
  ];
}

/** Every column of the trials table, in order; each facet is a text column after `condition_hash`. */
export function trialsContract(facets: readonly string[]): TableColumn[] {
  const at = OBSERVATION_CONTRACT.findIndex((c) => c.name === "condition_hash") + 1;
  return [
    ...OBSERVATION_CONTRACT.slice(0, at),
    ...facets.map(
      (name): TableColumn => ({ name, type: "text", what: "a facet of the condition (its value's label)" }),
    ),
    ...OBSERVATION_CONTRACT.slice(at),
    ...PROVENANCE_CONTRACT,
    ...AGENT_CONTRACT,
    // The audit columns end the row, so that a registered auditor's come last.
    ...trialAuditContract(),
  ];
}

/** Every column of the calls table, in order: the call's own, the provenance, each auditor's, the note. */
export function callsContract(): TableColumn[] {
  return [...CALL_CONTRACT, ...PROVENANCE_CONTRACT, ...callAuditors().flatMap((a) => a.callColumns), NOTE_COLUMN];
}

/** Column names of a contract. */
export function columnNames(columns: readonly TableColumn[]): string[] {
  return columns.map((c) => c.name);
}
