/**
 * The perturbation audit (Auditing the Audit): per cell the family deltas, CSR with its
 * item-paired CI and bootstrap support, the G1-G6 row and the §3 status with its flags, the
 * silent-no-op and parseability evidence, the App. E sweep, the scorer-fidelity table, and a diff
 * of the original vs perturbed scorer-consumed prompt for sampled items (escaped text, <del>/<ins>
 * marks, no script).
 */
import { diffWords } from "diff";
import {
  auditCellsTable,
  auditGlanceTable,
  fidelityTable,
  gateVerdict,
  integrityTable,
  sweepTable,
} from "../../../analysis/audit/audit-tables.js";
import type { AuditResult } from "../../../analysis/index.js";
import { type Content, el } from "../../html.js";
import { htmlTable, type RichCells } from "../../result-table.js";
import { chronologyCitations } from "../chronology.js";
import { type ReportContext, registerReportSection } from "../registry.js";

type Cell = AuditResult["cells"][number];

/** Each gate's verdict, its implementation and detail in a tooltip; a failed gate muted. */
function gateCell(gate: Cell["status"]["gates"][number] | undefined): Content {
  if (!gate) return "";
  return el(
    "span",
    { title: `${gate.implementation}: ${gate.detail}`, class: gate.passed ? "" : "muted" },
    gateVerdict(gate),
  );
}

/** The gate columns of the per-cell table as rich cells (G1 -> the first gate's span, ...). */
const GATE_CELLS: RichCells<Cell> = Object.fromEntries(
  ["G1", "G2", "G3", "G4", "G5", "G6"].map((id, k) => [id, (c: Cell) => gateCell(c.status.gates[k])]),
);

/** A word diff of two texts: removed words in <del>, added ones in <ins>, all escaped. */
export function diffView(original: string, perturbed: string): Content {
  if (original === perturbed) return el("pre", { class: "diff" }, "(identical bytes: a silent no-op)");
  return el(
    "pre",
    { class: "diff" },
    diffWords(original, perturbed).map((part) =>
      part.added ? el("ins", {}, part.value) : part.removed ? el("del", {}, part.value) : part.value,
    ),
  );
}

function samples(cells: readonly Cell[]): Content {
  const shown = cells.flatMap((c) => c.samples.map((s) => ({ cell: c.cell, s })));
  if (shown.length === 0)
    return el("p", { class: "muted" }, "No sampled prompts (the stored bytes are not available).");
  return shown.map(({ cell, s }) => [
    el(
      "h4",
      {},
      `${cell}: ${s.family}${s.perturbation ? ` / ${s.perturbation}` : ""}, item ${s.item}${s.noOp ? " (no-op)" : ""}`,
    ),
    diffView(s.original, s.perturbed),
  ]);
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Long per-cell detail, folded under a one-line summary so the gate summary leads the section. */
function folded(summary: string, body: Content): Content {
  return el("details", { class: "audit-rows" }, el("summary", {}, summary), body);
}

/** The gate card at a glance: the cells per status, then each cell's CSR, failed gates and status. */
function gateSummary(cells: readonly Cell[]): Content {
  const counts = new Map<string, number>();
  for (const c of cells) counts.set(c.status.bucket, (counts.get(c.status.bucket) ?? 0) + 1);
  return [
    el(
      "p",
      { class: "audit-statuses" },
      `${count(cells.length, "cell")}: ${[...counts].map(([status, n]) => `${n} ${status}`).join(", ")}.`,
    ),
    htmlTable(
      auditGlanceTable(),
      cells.map((cell) => ({ cell, label: cell.cell })),
      { attrs: { class: "audit-gates" } },
    ),
  ];
}

function audit(context: ReportContext): Content {
  const a = context.analysis.audit;
  if (!a || "skipped" in a) return [];
  return [
    el("h2", { id: "audit" }, "Perturbation audit (G1-G6)"),
    el(
      "p",
      {},
      `Each cell gets one status, the first §3 condition that fires (Auditing the Audit, Table 1 and App. G). CSR = |Δ_attr| / max(|Δ_fmt|, |Δ_sem|, ${a.thresholds.epsilon}); its 95% CI is an item-paired bootstrap of ${a.plan.resamples} resamples, and Pr(CSR > 1) is bootstrap support, not a p-value.`,
    ),
    gateSummary(a.cells),
    folded(
      `Every cell's row: archetype, family deltas, CSR with its CI, seed CV, G1-G6, status and flags (${count(a.cells.length, "row")})`,
      htmlTable(auditCellsTable, a.cells, {
        rich: {
          ...GATE_CELLS,
          // The self-audit chronology's entries that touched this cell (Box 1), cited beside it.
          chronology: (c) => chronologyCitations(context, c.model, c.benchmark),
        },
      }),
    ),
    el("h3", {}, "Measurement integrity: silent no-ops and parseability"),
    folded(
      `Silent no-op rate, parseability and placebo specificity per cell (${count(a.cells.length, "row")})`,
      htmlTable(integrityTable, a.cells),
    ),
    el("h3", {}, "Threshold sweep (App. E)"),
    htmlTable(sweepTable, a.sweep.settings),
    el("h3", {}, "Scorer fidelity (Table 4)"),
    htmlTable(fidelityTable, a.fidelity),
    el("h3", {}, "Original vs perturbed prompt (sampled items)"),
    folded(
      `Word diffs of the scorer-consumed prompt (${count(
        a.cells.reduce((n, c) => n + c.samples.length, 0),
        "sampled prompt",
      )})`,
      samples(a.cells),
    ),
    el(
      "ul",
      {},
      a.notes.map((n) => el("li", {}, n)),
    ),
  ];
}

registerReportSection({
  name: "audit",
  toc: { id: "audit", label: "Perturbation audit" },
  card: "audit",
  render: audit,
});
