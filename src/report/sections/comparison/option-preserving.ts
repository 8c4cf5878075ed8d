/** Option-preserving recovery and the residual NNH: a subsection of format dependence. */
import { ALL, NUMBER_NEEDED_HEADING, pct, pp, recoveryRowCells } from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { type Content, el, table } from "../../html.js";
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
      table(
        [
          "model",
          "reference",
          op.standard,
          op.preserving,
          "loss",
          "recovery [95% CI]",
          `headline ${NUMBER_NEEDED_HEADING}`,
          `residual ${NUMBER_NEEDED_HEADING}`,
        ],
        op.rows.map((r) => [
          r.model === ALL ? "all models" : r.model,
          pct(r.rates?.reference),
          pct(r.rates?.standard),
          pct(r.rates?.preserving),
          `${pp(r.loss.estimate)}${ci(r.loss.ci95, (v) => pp(v))}`,
          ...recoveryRowCells(r),
        ]),
      ),
    );
  }
  return out;
}

registerReportSection({ name: "optionPreserving", render: optionPreserving });
