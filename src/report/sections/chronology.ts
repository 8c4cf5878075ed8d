/**
 * The self-audit chronology (Auditing the Audit, Box 1): its totals and every entry with its
 * eight fields. Each entry has an anchor, so sections that show a cell cite the entries that
 * touched it (`chronologyCitations`).
 */
import { chronologyEntriesFor, chronologyLine } from "../../analysis/core/chronology.js";
import { CHRONOLOGY_TABLE } from "../../analysis/core/study-tables.js";
import { type Content, el } from "../html.js";
import { htmlTable } from "../result-table.js";
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

function render(context: ReportContext): Content {
  const chronology = context.methodology.chronology;
  if (!chronology) return "";
  return [
    el("h2", { id: "chronology" }, "Self-audit chronology"),
    el("p", {}, `Box 1 of Auditing the Audit: ${chronologyLine(chronology.totals)}.`),
    htmlTable(CHRONOLOGY_TABLE, chronology.entries, {
      rich: { id: (e) => el("span", { id: chronologyAnchor(e.id) }, e.id) },
    }),
  ];
}

registerReportSection({
  name: "chronology",
  toc: { id: "chronology", label: "Self-audit chronology" },
  render,
});
