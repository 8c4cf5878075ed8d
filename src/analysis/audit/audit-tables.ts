/**
 * The perturbation audit's result tables, each declared once and rendered as the terminal summary
 * and overview (`renderText`), the audit gate card audit-gate.md (`renderMarkdown`) and the report
 * (src/report/sections/audit). Where a rendering shows a column differently or not at all, the
 * column says so; the report's rich cells (gate marks with their evidence, chronology citations)
 * are added there, keyed by column.
 */
import type { ScorerFidelityRow } from "./result.js";
import type { AuditCell } from "./cells.js";
import type { SweepSetting } from "../../perturb/gate.js";
import { defineTable, type Rendering, type ResultColumn, type ResultTable } from "../core/result-table.js";
import { num } from "../core/text.js";

const FAMILIES = ["format", "semantic", "attribute", "placebo"] as const;
/** The terminal's short family headings; the report spells the family out. */
const SHORT: Record<(typeof FAMILIES)[number], string> = {
  format: "Δfmt",
  semantic: "Δsem",
  attribute: "Δattr",
  placebo: "Δplacebo",
};
const GATES = ["G1", "G2", "G3", "G4", "G5", "G6"] as const;

const isHtml = (rendering: Rendering) => rendering === "html";

/** "[0.12, 0.48]": the CSR's item-paired 95% CI. */
export function csrInterval(cell: AuditCell): string {
  return `[${num(cell.ci[0])}, ${num(cell.ci[1])}]`;
}

/** "G1✓ G2✗ G5✓*": each gate passed or failed, "*" when the gate is proposed, not implemented. */
function gateMarks(cell: AuditCell): string {
  return cell.status.gates
    .map((g) => `${g.id}${g.passed ? "✓" : "✗"}${g.implementation === "implemented" ? "" : "*"}`)
    .join(" ");
}

/** A gate's verdict in the report: "pass", "FAIL", with its implementation when not implemented. */
export function gateVerdict(gate: AuditCell["status"]["gates"][number]): string {
  return `${gate.passed ? "pass" : "FAIL"}${gate.implementation === "implemented" ? "" : ` (${gate.implementation})`}`;
}

/** The flags; the terminal packs them without spaces. */
function flags(cell: AuditCell, rendering: Rendering): string {
  return cell.status.flags.join(rendering === "text" ? "," : ", ") || "-";
}

/**
 * Every cell's row: the terminal's full summary (deltas, CSR, gates as marks), the card's status
 * table (archetype, baseline, s_orig with n, reason) and the report's row (all four families,
 * each gate in its own column, the chronology's citations).
 */
export const auditCellsTable: ResultTable<AuditCell> = defineTable<AuditCell>({
  name: "audit cells",
  columns: [
    { key: "cell", header: "cell", cell: (c) => c.cell },
    {
      key: "archetype",
      header: "archetype",
      shownIn: ["markdown", "html"],
      cell: (c) => c.archetype ?? "undisclosed",
    },
    { key: "baseline", header: "baseline", shownIn: ["markdown"], cell: (c) => num(c.baseline, 3) },
    {
      key: "original",
      // The card gives the original score to three places with its n; the terminal and report to two.
      header: { text: "s_orig", markdown: "s_orig (n)" },
      cell: (c, rendering) =>
        rendering === "markdown" ? `${num(c.original.score, 3)} (${c.original.n})` : num(c.original.score),
    },
    ...FAMILIES.map(
      (f): ResultColumn<AuditCell> => ({
        key: `delta ${f}`,
        header: { text: SHORT[f], html: `|Δ_${f}|` },
        // The placebo's delta is the report's alone; the card has every family in its deltas table.
        shownIn: f === "placebo" ? ["html"] : ["text", "html"],
        cell: (c) => num(c.deltas[f].delta, 3),
      }),
    ),
    { key: "csr", header: "CSR", shownIn: ["text", "html"], cell: (c) => num(c.csr) },
    { key: "ci", header: "95% CI", shownIn: ["text", "html"], cell: csrInterval },
    {
      key: "support",
      header: "Pr(CSR>1)",
      shownIn: ["text", "html"],
      cell: (c) => num(c.support),
      keptWhenNarrow: false,
    },
    { key: "seedCv", header: "seed CV", shownIn: ["text", "html"], cell: (c) => num(c.seedCv), keptWhenNarrow: false },
    // The terminal packs G1-G6 into one column of marks; the report gives each gate a column.
    { key: "gates", header: "gates", shownIn: ["text"], cell: gateMarks },
    ...GATES.map(
      (id, k): ResultColumn<AuditCell> => ({
        key: id,
        header: id,
        shownIn: ["html"],
        cell: (c) => (c.status.gates[k] ? gateVerdict(c.status.gates[k]) : ""),
      }),
    ),
    { key: "raw", header: "raw verdict", cell: (c) => c.status.raw, keptWhenNarrow: false },
    { key: "status", header: "status", cell: (c) => c.status.bucket },
    { key: "flags", header: "flags", cell: flags },
    { key: "reason", header: "reason", shownIn: ["markdown"], cell: (c) => c.status.reason },
    // The report cites the self-audit chronology's entries per cell (a rich cell there).
    { key: "chronology", header: "chronology", shownIn: ["html"], cell: () => "" },
  ],
});

/** A cell of the overview: the cell and its name without the facets every cell shares (terminal). */
export interface AuditGlanceRow {
  cell: AuditCell;
  label: string;
}

/**
 * The gate card at a glance: each cell's CSR with its CI, its gates and its status. The terminal
 * puts one mark under each gate's id (`gateIds`, the heading) and the flags; the report names the
 * failed gates.
 */
export function auditGlanceTable(gateIds: readonly string[] = []): ResultTable<AuditGlanceRow> {
  return defineTable<AuditGlanceRow>({
    name: "audit gate at a glance",
    columns: [
      // The terminal names a cell without the facets the line above says every cell has.
      { key: "cell", header: "cell", cell: (r, rendering) => (isHtml(rendering) ? r.cell.cell : r.label) },
      { key: "csr", header: "CSR [95% CI]", cell: (r) => `${num(r.cell.csr)} ${csrInterval(r.cell)}` },
      {
        key: "marks",
        header: gateIds.join(" "),
        shownIn: ["text"],
        // One mark under each gate's id: its column is the id's width plus the separating space.
        cell: (r) =>
          r.cell.status.gates
            .map((g) => `${g.passed ? "✓" : "✗"}${g.implementation === "implemented" ? " " : "*"}`)
            .join(" ")
            .trimEnd(),
      },
      {
        key: "failed",
        header: "gates failed",
        shownIn: ["html"],
        cell: (r) =>
          r.cell.status.gates
            .filter((g) => !g.passed)
            .map((g) => g.id)
            .join(", ") || "none",
      },
      { key: "status", header: "status", cell: (r) => r.cell.status.bucket },
      { key: "flags", header: "flags", shownIn: ["text"], cell: (r) => flags(r.cell, "text") },
    ],
  });
}

/** The G1-G6 evidence per cell: verdict, implementation and detail (the card). */
export const gateEvidenceTable = defineTable<AuditCell>({
  name: "gate G1-G6 evidence",
  columns: [
    { key: "cell", header: "cell", cell: (c) => c.cell },
    ...GATES.map(
      (id, k): ResultColumn<AuditCell> => ({
        key: id,
        header: id,
        cell: (c) => {
          const g = c.status.gates[k];
          return g ? `${g.passed ? "pass" : "FAIL"} (${g.implementation}): ${g.detail}` : "";
        },
      }),
    ),
  ],
});

/** The no-op rate per family over the scorer-consumed bytes; the report says why one is missing after a colon. */
function noOpText(cell: AuditCell, rendering: Rendering): string {
  if (!cell.noOp.instrumented)
    return isHtml(rendering)
      ? `not instrumented: ${cell.noOp.reason ?? ""}`
      : `not instrumented (${cell.noOp.reason ?? "?"})`;
  return Object.entries(cell.noOp.families)
    .map(([f, r]) => `${f} ${r.rate === null ? "n/a" : `${Math.round(r.rate * 100)}%`}`)
    .join(", ");
}

function parseText(cell: AuditCell, rendering: Rendering): string {
  const p = cell.parseability;
  const rate = p.rate === null ? "n/a" : `${Math.round(p.rate * 1000) / 10}%`;
  const dropped = `${p.droppedPairs}${isHtml(rendering) ? " of " : "/"}${p.pairs}`;
  return `${rate}${p.regexScorer ? "" : " (log-prob)"}; ${dropped} pairs dropped`;
}

/**
 * Measurement integrity per cell: silent no-ops (F1) and parseability (F2). The card adds the
 * families a perturbation does not apply to; the report adds the placebo's specificity.
 */
export const integrityTable = defineTable<AuditCell>({
  name: "audit measurement integrity",
  columns: [
    { key: "cell", header: "cell", cell: (c) => c.cell },
    {
      key: "noOp",
      header: { text: "no-op rate per family (scorer-consumed bytes)", html: "no-op rate (scorer-consumed bytes)" },
      unit: "%",
      cell: noOpText,
    },
    {
      key: "notApplicable",
      header: "not applicable per family",
      shownIn: ["text", "markdown"],
      cell: (c) =>
        Object.entries(c.noOp.families)
          .map(([f, r]) => `${f} ${r.notApplicable}`)
          .join(", ") || "-",
    },
    { key: "parse", header: "parseability; symmetric drops", cell: parseText },
    {
      key: "specificity",
      header: "placebo specificity",
      shownIn: ["html"],
      cell: (c) => num(c.placeboSpecificity),
    },
  ],
});

/** App. E's threshold sweep: each knob setting and the statuses it changes (the card adds the counts). */
export const sweepTable = defineTable<SweepSetting>({
  name: "threshold sweep",
  columns: [
    { key: "knob", header: "knob", cell: (s) => s.knob },
    { key: "value", header: "value", cell: (s) => String(s.value) },
    {
      key: "changed",
      header: "statuses changed",
      // The card keeps to ASCII; the report draws the arrow.
      cell: (s, rendering) =>
        s.changed.map((c) => `${c.cell}: ${c.from} ${isHtml(rendering) ? "→" : "->"} ${c.to}`).join("; ") || "none",
    },
    {
      key: "counts",
      header: "counts",
      shownIn: ["text", "markdown"],
      cell: (s) =>
        Object.entries(s.counts)
          .map(([b, n]) => `${b} ${n}`)
          .join(", "),
    },
  ],
});

/** Table 4: each benchmark's reference scorer, the audit's scorer and what validates it. */
export const fidelityTable = defineTable<ScorerFidelityRow>({
  name: "scorer fidelity",
  columns: [
    { key: "benchmark", header: "benchmark", cell: (f) => f.benchmark },
    { key: "path", header: "path", cell: (f) => f.path },
    { key: "reference", header: "reference scorer", cell: (f) => f.reference },
    { key: "audit", header: "audit scorer", cell: (f) => f.auditScorer },
    { key: "evidence", header: "validation evidence", cell: (f) => f.evidence },
    { key: "validated", header: "validated", cell: (f) => (f.validated ? "yes" : "NO") },
  ],
});

const FAMILY_HEADING: Record<(typeof FAMILIES)[number], string> = {
  format: "|Δ_fmt|",
  semantic: "|Δ_sem|",
  attribute: "|Δ_attr|",
  placebo: "|Δ_placebo|",
};

/** The audit card's family deltas (each with its items with a usable pair) and CSR per cell. */
export const familyDeltasTable = defineTable<AuditCell>({
  name: "audit family deltas and CSR",
  columns: [
    { key: "cell", header: "cell", cell: (c) => c.cell },
    ...FAMILIES.map(
      (family): ResultColumn<AuditCell> => ({
        key: family,
        header: FAMILY_HEADING[family],
        cell: (c) => `${num(c.deltas[family].delta, 3)} (${c.deltas[family].items})`,
      }),
    ),
    { key: "csr", header: "CSR", cell: (c) => num(c.csr) },
    { key: "ci", header: "95% CI (item-paired)", cell: csrInterval },
    { key: "support", header: "Pr(CSR > 1) (bootstrap support)", cell: (c) => num(c.support) },
    {
      key: "seeds",
      header: "CSR per seed",
      cell: (c) => c.seedCsr.map((s) => `${s.seed}: ${num(s.csr)}`).join(", "),
    },
    { key: "seedCv", header: "seed CV", cell: (c) => num(c.seedCv, 3) },
    { key: "csrPlacebo", header: "CSR_placebo", cell: (c) => num(c.csrPlacebo) },
    { key: "specificity", header: "specificity", cell: (c) => num(c.placeboSpecificity) },
  ],
});
