/** App. P: independence-based Wald RD intervals beside the case-cluster bootstrap ones. */
import { INDEPENDENCE_CI_TABLE } from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
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
    r.rows.length === 0 ? el("p", { class: "muted" }, "No contrasts.") : htmlTable(INDEPENDENCE_CI_TABLE, r.rows),
  ];
}

registerReportSection({
  name: "independenceCi",
  toc: { id: "independence-ci", label: "Wald intervals (App. P)" },
  render: independenceCi,
});
