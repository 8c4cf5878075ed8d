/**
 * The perturbation audit (Auditing the Audit): per cell the family deltas, CSR with its
 * item-paired CI and bootstrap support, the G1-G6 row and the §3 status with its flags, the
 * silent-no-op and parseability evidence, the App. E sweep, the scorer-fidelity table, and a diff
 * of the original vs perturbed scorer-consumed prompt for sampled items (escaped text, <del>/<ins>
 * marks, no script).
 */
import { diffWords } from "diff";
import { type AuditResult, num } from "../../../analysis/index.js";
import { type Content, el, table } from "../../html.js";
import { chronologyCitations } from "../chronology.js";
import { type ReportContext, registerReportSection } from "../registry.js";

type Cell = AuditResult["cells"][number];

const FAMILIES = ["format", "semantic", "attribute", "placebo"] as const;

function gateCells(cell: Cell): Content[] {
  return cell.status.gates.map((g) =>
    el(
      "span",
      { title: `${g.implementation}: ${g.detail}`, class: g.passed ? "" : "muted" },
      `${g.passed ? "pass" : "FAIL"}${g.implementation === "implemented" ? "" : ` (${g.implementation})`}`,
    ),
  );
}

function noOpText(cell: Cell): string {
  if (!cell.noOp.instrumented) return `not instrumented: ${cell.noOp.reason ?? ""}`;
  return Object.entries(cell.noOp.families)
    .map(([f, r]) => `${f} ${r.rate === null ? "n/a" : `${Math.round(r.rate * 100)}%`}`)
    .join(", ");
}

function parseText(cell: Cell): string {
  const p = cell.parseability;
  const rate = p.rate === null ? "n/a" : `${Math.round(p.rate * 1000) / 10}%`;
  return `${rate}${p.regexScorer ? "" : " (log-prob)"}; ${p.droppedPairs} of ${p.pairs} pairs dropped`;
}

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
    table(
      ["cell", "CSR [95% CI]", "gates failed", "status"],
      cells.map((c) => [
        c.cell,
        `${num(c.csr)} [${num(c.ci[0])}, ${num(c.ci[1])}]`,
        c.status.gates
          .filter((g) => !g.passed)
          .map((g) => g.id)
          .join(", ") || "none",
        c.status.bucket,
      ]),
      { class: "audit-gates" },
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
      table(
        [
          "cell",
          "archetype",
          "s_orig",
          ...FAMILIES.map((f) => `|Δ_${f}|`),
          "CSR",
          "95% CI",
          "Pr(CSR>1)",
          "seed CV",
          "G1",
          "G2",
          "G3",
          "G4",
          "G5",
          "G6",
          "raw verdict",
          "status",
          "flags",
          "chronology",
        ],
        a.cells.map((c) => [
          c.cell,
          c.archetype ?? "undisclosed",
          num(c.original.score),
          ...FAMILIES.map((f) => num(c.deltas[f].delta, 3)),
          num(c.csr),
          `[${num(c.ci[0])}, ${num(c.ci[1])}]`,
          num(c.support),
          num(c.seedCv),
          ...gateCells(c),
          c.status.raw,
          c.status.bucket,
          c.status.flags.join(", ") || "-",
          // The self-audit chronology's entries that touched this cell (Box 1), cited beside it.
          chronologyCitations(context, c.model, c.benchmark),
        ]),
      ),
    ),
    el("h3", {}, "Measurement integrity: silent no-ops and parseability"),
    folded(
      `Silent no-op rate, parseability and placebo specificity per cell (${count(a.cells.length, "row")})`,
      table(
        ["cell", "no-op rate (scorer-consumed bytes)", "parseability; symmetric drops", "placebo specificity"],
        a.cells.map((c) => [c.cell, noOpText(c), parseText(c), num(c.placeboSpecificity)]),
      ),
    ),
    el("h3", {}, "Threshold sweep (App. E)"),
    table(
      ["knob", "value", "statuses changed"],
      a.sweep.settings.map((s) => [
        s.knob,
        String(s.value),
        s.changed.map((c) => `${c.cell}: ${c.from} → ${c.to}`).join("; ") || "none",
      ]),
    ),
    el("h3", {}, "Scorer fidelity (Table 4)"),
    table(
      ["benchmark", "path", "reference scorer", "audit scorer", "validation evidence", "validated"],
      a.fidelity.map((f) => [f.benchmark, f.path, f.reference, f.auditScorer, f.evidence, f.validated ? "yes" : "NO"]),
    ),
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
