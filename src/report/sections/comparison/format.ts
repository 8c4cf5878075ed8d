/** Format dependence: the OE - MC gap chart and the condition x format 2x2. */
import { formatComparisonNotes, formatTwoByTwoTable } from "../../../analysis/index.js";
import { figure } from "../../blocks.js";
import { formatGapBars } from "../../charts.js";
import { type Content, el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function format({ analysis }: ReportContext): Content {
  const out: Content[] = [el("h2", { id: "format" }, "Format dependence")];
  const f = analysis.format;
  if ("skipped" in f) {
    out.push(el("p", { class: "muted" }, `Skipped: ${f.skipped}`));
    return out;
  }
  // Which items the comparison reads: those seen in both formats; the benchmarks left out, named.
  const notes = formatComparisonNotes(f).map((line) => line.trim());
  if (notes.length > 0) out.push(el("ul", { class: "muted" }, ...notes.map((line) => el("li", {}, line))));
  if (f.gaps.length > 0) {
    out.push(
      figure(
        formatGapBars(analysis),
        `${f.oe} minus ${f.mc} at ${analysis.meta.reference}, per benchmark and model, with case-cluster bootstrap 95% CIs`,
      ),
    );
    out.push(el("h3", {}, "Scaffold x format 2x2"), htmlTable(formatTwoByTwoTable(f), f.withinFormat));
  }
  return out;
}

registerReportSection({ name: "format", toc: { id: "format", label: "Format dependence" }, render: format });
