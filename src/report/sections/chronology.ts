/**
 * The self-audit chronology (Auditing the Audit, Box 1): its totals and every entry with its
 * eight fields. Each entry has an anchor, so sections that show a cell cite the entries that
 * touched it (`chronologyCitations`).
 */
import type { ChronologyEntry } from "../../contracts/chronology.js";
import { chronologyEntriesFor, chronologyLine } from "../../analysis/chronology.js";
import { type Content, el, table } from "../html.js";
import { type ReportContext, registerReportSection } from "./registry.js";

export function chronologyAnchor(id: string): string {
  return `chronology-${id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** Links to the chronology entries that name this cell among their affected cells; empty when none. */
export function chronologyCitations(context: ReportContext, model: string, benchmark: string): Content {
  const entries = context.methodology?.chronology?.entries ?? [];
  return chronologyEntriesFor(entries, model, benchmark).map((e) =>
    el("a", { href: `#${chronologyAnchor(e.id)}`, class: "cite", title: `${e.status}: ${e.symptom}` }, `[${e.id}]`),
  );
}

function deltaText(entry: ChronologyEntry): string {
  const value = (x: number | null) => (x === null ? "-" : String(x));
  return entry.delta
    .map((d) => `${d.model} x ${d.benchmark}: ${d.statistic} ${value(d.before)} -> ${value(d.after)}`)
    .join("; ");
}

function entryRow(e: ChronologyEntry): Content[] {
  return [
    el("span", { id: chronologyAnchor(e.id) }, e.id),
    e.failure_class,
    `${e.discovered.date}: ${e.discovered.how}`,
    e.affected_cells.map((c) => `${c.model} x ${c.benchmark}`).join(", "),
    e.symptom,
    e.provenance,
    `${e.fix.change ?? "no fix"}; test: ${e.fix.regression_test ?? "none"}`,
    deltaText(e),
    e.status_reason ? `${e.status} (${e.status_reason})` : e.status,
  ];
}

function render(context: ReportContext): Content {
  const chronology = context.methodology.chronology;
  if (!chronology) return "";
  return [
    el("h2", { id: "chronology" }, "Self-audit chronology"),
    el("p", {}, `Box 1 of Auditing the Audit: ${chronologyLine(chronology.totals)}.`),
    table(
      [
        "ID",
        "failure class",
        "discovered (how)",
        "affected cells",
        "symptom in the numbers",
        "provenance",
        "fix and regression test",
        "before -> after",
        "status",
      ],
      chronology.entries.map(entryRow),
    ),
  ];
}

registerReportSection({
  name: "chronology",
  toc: { id: "chronology", label: "Self-audit chronology" },
  render,
});
