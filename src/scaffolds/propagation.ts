/**
 * The propagation audit (ScaffoldSafety 5.2): for one sub-call, what of the task reached it, as
 * named checks by the registered auditors (audits/registry.ts): options_reached,
 * system_prompt_retained, safety_reached, persona_leak, and any auditor added later. Pure
 * functions of the rendered task (renderTrialTask: format, then system-prompt variant) and the
 * messages actually sent.
 */
import type { ChatMessage } from "../contracts/provider.js";
import type { TaskInput } from "../contracts/task.js";
import type { CallChecks } from "../contracts/trial.js";
import { callAuditors } from "./audits/registry.js";
import { foldedText } from "../core/folded-text.js";
import type { PersonaLeak } from "./persona.js";

export { isMapRole } from "./audits/persona-leak.js";
export { promptSentences, sentenceShare } from "./audits/text.js";

/** Every registered check of one sub-call of the rendered `task`, by name (null: not applicable). */
export function auditCall(task: TaskInput, role: string, messages: readonly ChatMessage[]): CallChecks {
  const haystack = foldedText(messages.map((m) => m.content).join("\n\n"));
  const checks: Record<string, unknown> = {};
  for (const auditor of callAuditors()) checks[auditor.name] = auditor.check({ task, role, messages, haystack });
  return checks;
}

/** The four propagation checks of a call, typed (for `parallax status`); undefined when not audited. */
export interface PropagationChecks {
  optionsReached: boolean | null;
  systemPromptRetained: number | null;
  safetyReached: boolean | null;
  personaLeak: PersonaLeak | null;
}

export function propagationChecks(checks: CallChecks | undefined): PropagationChecks | undefined {
  if (!checks) return undefined;
  const read = <T>(name: string) => (checks[name] ?? null) as T | null;
  return {
    optionsReached: read<boolean>("options_reached"),
    systemPromptRetained: read<number>("system_prompt_retained"),
    safetyReached: read<boolean>("safety_reached"),
    personaLeak: read<PersonaLeak>("persona_leak"),
  };
}

/** "map-2" -> "map-k": roles pooled across loop indices for summaries. */
export function roleKind(role: string): string {
  return role.replace(/-\d+$/, "-k");
}
