/** Cell-level baseline dependence: the reference rate vs the condition's delta, with Spearman's rho. */
import { BASELINE_CELLS_TABLE, num, pValue, rateNoun } from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function baselineDependence({ analysis }: ReportContext) {
  const b = analysis.baselineDependence;
  return [
    el("h2", { id: "baseline-dependence" }, "Baseline dependence across cells"),
    "skipped" in b
      ? el("p", { class: "muted" }, `Skipped: ${b.skipped}`)
      : [
          el(
            "p",
            {},
            `Across ${b.cells.length} model × benchmark cells, Spearman's ρ between the ${b.reference} ${rateNoun([...new Set(b.cells.map((c) => c.benchmark))], analysis.meta.measures)} and the ${b.condition} change from it: ${num(b.rho)} (${b.pNotInterpretable ? `p not interpretable: ${b.pNotInterpretable}` : `p ${pValue(b.p)}`}). Negative: higher baselines degrade more.`,
          ),
          htmlTable(BASELINE_CELLS_TABLE, b.cells),
        ],
  ];
}

registerReportSection({
  name: "baselineDependence",
  toc: { id: "baseline-dependence", label: "Baseline dependence" },
  render: baselineDependence,
});
