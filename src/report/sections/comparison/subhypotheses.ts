/** H3's directional sub-hypotheses with their within-family adjustment and verdicts. */
import { SUBHYPOTHESES_TABLE } from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function subhypotheses({ analysis }: ReportContext) {
  const s = analysis.subhypotheses;
  return [
    el("h2", { id: "subhypotheses" }, "H3 sub-hypotheses"),
    "skipped" in s
      ? el("p", { class: "muted" }, `Skipped: ${s.skipped}`)
      : [
          el(
            "p",
            {},
            `Directional sub-hypotheses as the plan declares them, each on one benchmark; p adjusted within the family (${s.adjustment}).`,
          ),
          htmlTable(SUBHYPOTHESES_TABLE, s.results),
        ],
  ];
}

registerReportSection({
  name: "subhypotheses",
  toc: { id: "subhypotheses", label: "H3 sub-hypotheses" },
  render: subhypotheses,
});
