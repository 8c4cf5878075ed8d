/** H3's directional sub-hypotheses with their within-family adjustment and verdicts. */
import { num, pct, pValue } from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { el, table } from "../../html.js";
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
          table(
            ["name", "benchmark", "measure", "predicted", "rates", "test", "p", "p adjusted", "verdict"],
            s.results.map((r) => [
              r.name,
              r.benchmark,
              r.measure,
              r.prediction,
              r.rates.map((x) => `${x.level} ${pct(x.rate)} (n=${x.n})`).join("; ") || "-",
              r.test
                ? r.test.kind === "joint Wald"
                  ? `Wald χ²(${r.test.df}) = ${num(r.test.statistic)}`
                  : `OR ${num(r.test.oddsRatio)}${ci(r.test.ci95, (x) => num(x))}, z = ${num(r.test.statistic)} (one-sided)`
                : (r.skipped ?? "-"),
              pValue(r.test?.p),
              pValue(r.test?.pAdjusted),
              r.verdict,
            ]),
          ),
        ],
  ];
}

registerReportSection({
  name: "subhypotheses",
  toc: { id: "subhypotheses", label: "H3 sub-hypotheses" },
  render: subhypotheses,
});
