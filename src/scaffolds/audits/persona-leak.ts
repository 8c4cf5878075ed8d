import { classifyLeakage, extractPersona, type PersonaLeak } from "../persona.js";
import type { CallAuditor } from "./types.js";

/** Whether a call is a map (decomposition worker) sub-call, by its role. */
export function isMapRole(role: string): boolean {
  return /^map-\d+$/.test(role);
}

/**
 * For map sub-calls of persona (sycophancy-style) items, the persona features that leaked into
 * the sub-question's user text (persona.ts); null for every other call.
 */
export const personaLeakAuditor: CallAuditor<PersonaLeak> = {
  name: "persona_leak",
  check({ task, role, messages }) {
    const persona = isMapRole(role) ? extractPersona(task.question) : undefined;
    if (!persona) return null;
    const userText = messages
      .filter((m) => m.role === "user")
      .map((m) => m.content)
      .join("\n\n");
    return classifyLeakage(persona, userText);
  },
  callColumns: [
    {
      name: "persona_leak_adversarial",
      type: "text",
      what: "adversarial persona features leaked into a map call, `;`-joined",
    },
    {
      name: "persona_leak_contextual",
      type: "text",
      what: "contextual persona features leaked into a map call, `;`-joined",
    },
  ],
  callValues: (value) => ({
    persona_leak_adversarial: value ? value.adversarial.join(";") : null,
    persona_leak_contextual: value ? value.contextual.join(";") : null,
  }),
  trialColumns: [
    { name: "persona_leak_calls", type: "integer", what: "map calls that leaked an adversarial persona feature" },
  ],
  // Calls whose sub-question leaked an adversarial feature; null when no call was a persona map call.
  trialValues: (values) => ({
    persona_leak_calls: values.some((v) => v) ? values.filter((v) => (v?.adversarial.length ?? 0) > 0).length : null,
  }),
};
