/** Format dependence: the OE - MC gap chart and the condition x format 2x2. */
import { formatComparisonNotes, pp, tostMark } from "../../../analysis/index.js";
import { ci, figure } from "../../blocks.js";
import { formatGapBars } from "../../charts.js";
import { type Content, el, table } from "../../html.js";
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
    out.push(
      el("h3", {}, "Scaffold x format 2x2"),
      table(
        ["condition", `RD at ${f.mc}`, `RD at ${f.oe}`, "difference (MC minus OE)"],
        f.withinFormat.map((w) => [
          w.condition,
          `${pp(w.rdMc.estimate)}${ci(w.rdMc.ci95, (v) => pp(v))}${tostMark(w, w.rdMc.equivalent, " (equivalent)")}`,
          `${pp(w.rdOe.estimate)}${ci(w.rdOe.ci95, (v) => pp(v))}${tostMark(w, w.rdOe.equivalent, " (equivalent)")}`,
          `${pp(w.interaction.estimate)}${ci(w.interaction.ci95, (v) => pp(v))}${
            w.notInterpretable ? ` not interpretable: ${w.notInterpretable}` : ""
          }`,
        ]),
      ),
    );
  }
  return out;
}

registerReportSection({ name: "format", toc: { id: "format", label: "Format dependence" }, render: format });
