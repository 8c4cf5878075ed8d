/** Paired flips (McNemar) and the change by item difficulty. */
import { DIFFICULTY_TABLE, FLIPS_TABLE } from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function paired({ analysis }: ReportContext) {
  return [
    el("h2", { id: "paired" }, "Paired flips and item difficulty"),
    htmlTable(FLIPS_TABLE, analysis.paired.flips),
    htmlTable(DIFFICULTY_TABLE, analysis.paired.difficulty),
  ];
}

registerReportSection({ name: "paired", toc: { id: "paired", label: "Paired flips" }, render: paired });
