/** The specification curve chart with its summary and permutation test. */
import { num, pct, pValue } from "../../analysis/index.js";
import { figure } from "../blocks.js";
import { specCurveChart } from "../charts.js";
import { el } from "../html.js";
import { type ReportContext, registerReportSection } from "./registry.js";

function curve({ analysis }: ReportContext) {
  const s = analysis.specificationCurve;
  if ("skipped" in s)
    return [el("h2", { id: "curve" }, "Specification curve"), el("p", { class: "muted" }, `Skipped: ${s.skipped}`)];
  return [
    el("h2", { id: "curve" }, "Specification curve"),
    figure(
      specCurveChart(analysis),
      `${s.summary.n} specifications over ${s.dimensions.map((d) => d.name).join(", ")}`,
    ),
    el(
      "p",
      {},
      `Median OR ${num(s.summary.medianOddsRatio)} (IQR ${num(s.summary.iqrOddsRatio[0])}–${num(s.summary.iqrOddsRatio[1])}), ${pct(s.summary.shareSignificant, 0)} significant. `,
      s.permutation
        ? `Permutation test (${s.permutation.count} within-case label shuffles): p(median) = ${pValue(s.permutation.pMedian)}, p(share significant) = ${pValue(s.permutation.pShareSignificant)}.`
        : (s.permutationNote ?? ""),
    ),
  ];
}

registerReportSection({
  name: "specificationCurve",
  toc: { id: "curve", label: "Specification curve" },
  render: curve,
});
