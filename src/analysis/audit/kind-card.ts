/** The perturbation audit's card: the audit gate, written by the audit analysis (audit-gate.md/.json). */
import { registerKindCard } from "../core/kinds.js";
import { AUDIT_GATE_MD } from "./gate-report.js";

registerKindCard({
  kind: "audit",
  title: "Audit gate card",
  what: "perturbation audit (Auditing the Audit)",
  file: AUDIT_GATE_MD,
});
