/** App. P: independence-based Wald RD intervals beside the case-cluster bootstrap ones. */
import { pp } from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { el, table } from "../../html.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function independenceCi({ analysis }: ReportContext) {
  const r = analysis.independenceCi;
  return [
    el("h2", { id: "independence-ci" }, "Independence-based Wald intervals (sensitivity)"),
    el(
      "p",
      {},
      `Risk differences with unpooled Wald intervals that treat the two proportions as independent (${r.population.toUpperCase()}), discarding the within-case pairing, beside the primary case-cluster bootstrap interval. Descriptive; no multiplicity correction.`,
    ),
    r.rows.length === 0
      ? el("p", { class: "muted" }, "No contrasts.")
      : table(
          ["scope", "condition", "RD", "Wald 95% CI", "Wald 90% CI", "bootstrap 95% CI", "width ratio"],
          r.rows.map((x) => [
            x.scope,
            x.condition,
            pp(x.riskDifference),
            ci(x.wald95, (v) => pp(v)),
            ci(x.wald90, (v) => pp(v)),
            ci(x.bootstrap95, (v) => pp(v)) || "-",
            x.widthRatio === null ? "-" : x.widthRatio.toFixed(2),
          ]),
        ),
  ];
}

registerReportSection({
  name: "independenceCi",
  toc: { id: "independence-ci", label: "Wald intervals (App. P)" },
  render: independenceCi,
});
