/**
 * A per-call auditor: one named check of what reached a sub-call (ScaffoldSafety 5.2, 6.4). The
 * runner stores each call's checks as JSON keyed by name; the exports turn each check into its
 * own columns, so a new auditor is one file and one line in the registry, nothing else.
 */
import type { ChatMessage } from "../../contracts/provider.js";
import type { TableColumn } from "../../contracts/table-column.js";
import type { TaskInput } from "../../contracts/task.js";

/** What an auditor sees of one sub-call. */
export interface AuditedCall {
  /** The task as rendered for the trial (renderTrialTask): what the scaffold was given. */
  task: TaskInput;
  role: string;
  messages: readonly ChatMessage[];
  /** Every message's text joined, whitespace- and case-folded (re-wrapping is not loss). */
  haystack: string;
}

export interface CallAuditor<V = unknown> {
  /** The check's name: its key in the stored JSON. */
  name: string;
  /** The check on one sub-call; null when it does not apply. Must be JSON-serialisable. */
  check(call: AuditedCall): V | null;
  /** The calls export's columns of this check (each with its type), with their values for one call (null: not applied). */
  callColumns: readonly TableColumn[];
  callValues(value: V | null): Record<string, unknown>;
  /** The trials export's columns of this check (each with its type), aggregated over a trial's calls. */
  trialColumns: readonly TableColumn[];
  trialValues(values: readonly (V | null)[]): Record<string, number | null>;
}
