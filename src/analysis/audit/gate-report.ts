/**
 * The audit gate report (Auditing the Audit Table 1, §3, App. E, Table 4) as text: the lines of
 * `parallax analyze`'s summary, and `audit-gate.md` / `audit-gate.json`, written beside the
 * scorecard for a perturbation study.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AuditCell } from "./cells.js";
import type { AuditResult } from "./result.js";
import { md, num, textTable } from "../text.js";

export const AUDIT_GATE_MD = "audit-gate.md";
export const AUDIT_GATE_JSON = "audit-gate.json";

const FAMILIES = ["format", "semantic", "attribute", "placebo"] as const;

function ciText(cell: AuditCell): string {
  return `[${num(cell.ci[0])}, ${num(cell.ci[1])}]`;
}

function gateRow(cell: AuditCell): string {
  return cell.status.gates
    .map((g) => `${g.id}${g.passed ? "✓" : "✗"}${g.implementation === "implemented" ? "" : "*"}`)
    .join(" ");
}

function noOpText(cell: AuditCell): string {
  if (!cell.noOp.instrumented) return `not instrumented (${cell.noOp.reason ?? "?"})`;
  return Object.entries(cell.noOp.families)
    .map(([f, r]) => `${f} ${r.rate === null ? "n/a" : `${Math.round(r.rate * 100)}%`}`)
    .join(", ");
}

function parseText(cell: AuditCell): string {
  const p = cell.parseability;
  const rate = p.rate === null ? "n/a" : `${Math.round(p.rate * 1000) / 10}%`;
  return `${rate}${p.regexScorer ? "" : " (log-prob)"}; ${p.droppedPairs}/${p.pairs} pairs dropped`;
}

export function auditSummaryLines(audit: AuditResult): string[] {
  return [
    "perturbation audit (Auditing the Audit: G1-G6 and the §3 status, first match wins)",
    ...textTable(
      [
        "cell",
        "s_orig",
        "Δfmt",
        "Δsem",
        "Δattr",
        "CSR",
        "95% CI",
        "Pr(CSR>1)",
        "seed CV",
        "gates",
        "raw verdict",
        "status",
        "flags",
      ],
      audit.cells.map((c) => [
        c.cell,
        num(c.original.score),
        num(c.deltas.format.delta, 3),
        num(c.deltas.semantic.delta, 3),
        num(c.deltas.attribute.delta, 3),
        num(c.csr),
        ciText(c),
        num(c.support),
        num(c.seedCv),
        gateRow(c),
        c.status.raw,
        c.status.bucket,
        c.status.flags.join(",") || "-",
      ]),
    ),
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
    "| cell | archetype | baseline | s_orig (n) | raw verdict | status | flags | reason |",
    "|---|---|---|---|---|---|---|---|",
    ...audit.cells.map(
      (c) =>
        `| ${md(c.cell)} | ${c.archetype ?? "undisclosed"} | ${num(c.baseline, 3)} | ${num(c.original.score, 3)} (${c.original.n}) | ${c.status.raw} | ${c.status.bucket} | ${c.status.flags.join(", ") || "-"} | ${md(c.status.reason)} |`,
    ),
    "",
    `Counts: ${Object.entries(audit.counts)
      .map(([b, n]) => `${b} ${n}`)
      .join(", ")}.`,
    "",
    "## Family deltas and CSR",
    "",
    "| cell | |Δ_fmt| | |Δ_sem| | |Δ_attr| | |Δ_placebo| | CSR | 95% CI (item-paired) | Pr(CSR > 1) (bootstrap support) | CSR per seed | seed CV | CSR_placebo | specificity |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...audit.cells.map(
      (c) =>
        `| ${md(c.cell)} | ${FAMILIES.map((f) => `${num(c.deltas[f].delta, 3)} (${c.deltas[f].items})`).join(" | ")} | ${num(c.csr)} | ${ciText(c)} | ${num(c.support)} | ${c.seedCsr.map((s) => `${s.seed}: ${num(s.csr)}`).join(", ")} | ${num(c.seedCv, 3)} | ${num(c.csrPlacebo)} | ${num(c.placeboSpecificity)} |`,
    ),
    "",
    "Deltas show (items with a usable pair). Pairs where either side did not parse are dropped symmetrically (App. C).",
    "",
    "## Gate G1-G6",
    "",
    "| cell | G1 | G2 | G3 | G4 | G5 | G6 |",
    "|---|---|---|---|---|---|---|",
    ...audit.cells.map(
      (c) =>
        `| ${md(c.cell)} | ${c.status.gates.map((g) => `${g.passed ? "pass" : "FAIL"} (${g.implementation}): ${md(g.detail)}`).join(" | ")} |`,
    ),
    "",
    "## Measurement integrity: silent no-ops (F1) and parseability (F2)",
    "",
    "| cell | no-op rate per family (scorer-consumed bytes) | not applicable per family | parseability; symmetric drops |",
    "|---|---|---|---|",
    ...audit.cells.map(
      (c) =>
        `| ${md(c.cell)} | ${md(noOpText(c))} | ${
          Object.entries(c.noOp.families)
            .map(([f, r]) => `${f} ${r.notApplicable}`)
            .join(", ") || "-"
        } | ${md(parseText(c))} |`,
    ),
    "",
    "## Threshold sweep (App. E)",
    "",
    "| knob | value | statuses changed | counts |",
    "|---|---|---|---|",
    ...audit.sweep.settings.map(
      (s) =>
        `| ${s.knob} | ${s.value} | ${md(s.changed.map((c) => `${c.cell}: ${c.from} -> ${c.to}`).join("; ") || "none")} | ${md(
          Object.entries(s.counts)
            .map(([b, n]) => `${b} ${n}`)
            .join(", "),
        )} |`,
    ),
    ...audit.sweep.notes.map((n) => `\n${md(n)}`),
    "",
    "## Scorer fidelity (Table 4)",
    "",
    "| benchmark | path | reference scorer | audit scorer | validation evidence | validated |",
    "|---|---|---|---|---|---|",
    ...audit.fidelity.map(
      (f) =>
        `| ${md(f.benchmark)} | ${f.path} | ${md(f.reference)} | ${md(f.auditScorer)} | ${md(f.evidence)} | ${f.validated ? "yes" : "NO"} |`,
    ),
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
