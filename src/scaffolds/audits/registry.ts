/**
 * The per-call auditors, in column order (the export's columns follow this order). A new check
 * is one file and one line here: the runner stores it, the exports add its columns.
 */
import { optionsReachedAuditor } from "./options-reached.js";
import { personaLeakAuditor } from "./persona-leak.js";
import { safetyReachedAuditor } from "./safety-reached.js";
import { systemPromptRetainedAuditor } from "./system-prompt-retained.js";
import type { CallAuditor } from "./types.js";

const ordered: CallAuditor[] = [];

/** Adds an auditor after the registered ones; names are unique. */
export function registerAuditor<V>(auditor: CallAuditor<V>): void {
  if (ordered.some((a) => a.name === auditor.name)) throw new Error(`auditor '${auditor.name}' is registered twice`);
  ordered.push(auditor as CallAuditor);
}

/** The registered auditors in registration order. */
export function callAuditors(): readonly CallAuditor[] {
  return ordered;
}

registerAuditor(optionsReachedAuditor);
registerAuditor(systemPromptRetainedAuditor);
registerAuditor(safetyReachedAuditor);
registerAuditor(personaLeakAuditor);
