/**
 * The audit gate report (Auditing the Audit Table 1, §3, App. E, Table 4) as text: the lines of
 * `parallax analyze`'s summary, and `audit-gate.md` / `audit-gate.json`, written beside the
 * scorecard for a perturbation study.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  auditCellsTable,
  familyDeltasTable,
  fidelityTable,
  gateEvidenceTable,
  integrityTable,
  sweepTable,
} from "./audit-tables.js";
import type { AuditResult } from "./result.js";
import { renderMarkdown, renderText } from "../core/result-table.js";
import { md } from "../core/text.js";

export const AUDIT_GATE_MD = "audit-gate.md";
export const AUDIT_GATE_JSON = "audit-gate.json";

export function auditSummaryLines(audit: AuditResult): string[] {
  return [
    "perturbation audit (Auditing the Audit: G1-G6 and the §3 status, first match wins)",
    ...renderText(auditCellsTable, audit.cells),
    `(* gate not implemented: ${proposedGates(audit)}; ${AUDIT_GATE_MD} has the evidence)`,
    "",
  ];
}

/** The gates the plan leaves unimplemented ("G5 proposed, G6 proposed"), or "none". */
function proposedGates(audit: AuditResult): string {
  const open = (["g5", "g6"] as const).filter((g) => audit.plan[g] !== "implemented");
  return open.map((g) => `${g.toUpperCase()} ${audit.plan[g]}`).join(", ") || "none";
}

export function auditMarkdown(audit: AuditResult, title: string): string {
  const lines: string[] = [
    `# Audit gate: ${title}`,
    "",
    "Auditing the Audit, Table 1 (G1-G6) and the §3 status algorithm (first match wins; App. G maps raw verdicts to buckets).",
    `Thresholds: G1 no-op rate < ${audit.thresholds.noOpCap}, parseability >= ${audit.thresholds.parseability} (free-form); G2 baseline + ${audit.thresholds.baselineSe} SE; G3 >= ${audit.thresholds.g3}; G4 seed CV < ${audit.thresholds.seedCv}, >= ${audit.thresholds.minItems} items; ε = ${audit.thresholds.epsilon}; ${audit.plan.resamples} item-paired resamples (seed ${audit.plan.bootstrap_seed}); seeds ${audit.plan.seeds.join(", ")}.`,
    "",
    "## Status per cell",
    "",
    ...renderMarkdown(auditCellsTable, audit.cells),
    "",
    `Counts: ${Object.entries(audit.counts)
      .map(([b, n]) => `${b} ${n}`)
      .join(", ")}.`,
    "",
    "## Family deltas and CSR",
    "",
    ...renderMarkdown(familyDeltasTable, audit.cells),
    "",
    "Deltas show (items with a usable pair). Pairs where either side did not parse are dropped symmetrically (App. C).",
    "",
    "## Gate G1-G6",
    "",
    ...renderMarkdown(gateEvidenceTable, audit.cells),
    "",
    "## Measurement integrity: silent no-ops (F1) and parseability (F2)",
    "",
    ...renderMarkdown(integrityTable, audit.cells),
    "",
    "## Threshold sweep (App. E)",
    "",
    ...renderMarkdown(sweepTable, audit.sweep.settings),
    ...audit.sweep.notes.map((n) => `\n${md(n)}`),
    "",
    "## Scorer fidelity (Table 4)",
    "",
    ...renderMarkdown(fidelityTable, audit.fidelity),
    "",
    "## Notes",
    "",
    ...audit.notes.map((n) => `- ${md(n)}`),
    "",
  ];
  return `${lines.join("\n")}\n`;
}

/** Writes DIR/audit-gate.md and DIR/audit-gate.json; returns their paths. */
export function writeAuditGate(dir: string, audit: AuditResult, title: string): string[] {
  const mdPath = join(dir, AUDIT_GATE_MD);
  const jsonPath = join(dir, AUDIT_GATE_JSON);
  writeFileSync(mdPath, auditMarkdown(audit, title));
  writeFileSync(jsonPath, `${JSON.stringify(audit, null, 2)}\n`);
  return [mdPath, jsonPath];
}
