/** Option-preserving recovery and the residual NNH: a subsection of format dependence. */
import { recoveryTable } from "../../../analysis/index.js";
import { type Content, el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function optionPreserving({ analysis }: ReportContext): Content {
  const out: Content[] = [el("h3", {}, "Option-preserving recovery and residual NNH")];
  const op = analysis.optionPreserving;
  if ("skipped" in op) out.push(el("p", { class: "muted" }, `Skipped: ${op.skipped}`));
  else {
    out.push(
      el(
        "p",
        { class: "muted" },
        `Recovery = (${op.preserving} − ${op.standard}) / (reference − ${op.standard})${op.restrictedTo ? `, at ${op.restrictedTo}` : ""}; undefined when ${op.standard} loses nothing.`,
      ),
      htmlTable(recoveryTable(op), op.rows),
    );
  }
  return out;
}

registerReportSection({ name: "optionPreserving", render: optionPreserving });
