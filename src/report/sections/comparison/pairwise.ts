/** The all-pairwise family of the primary configurations. */
import { num, pct, pp, pValue } from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { el, table } from "../../html.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function pairwise({ analysis }: ReportContext) {
  const f = analysis.pairwise;
  return [
    el("h2", { id: "pairwise" }, "All pairwise comparisons"),
    "skipped" in f
      ? el("p", { class: "muted" }, `Skipped: ${f.skipped}`)
      : [
          el(
            "p",
            {},
            `Every pair of the primary configurations (${f.configurations.join(", ")}): odds ratios from ${f.formula} with cluster-robust standard errors; p adjusted by ${f.adjustment}.`,
          ),
          table(
            ["pair", "rates", "RD", "OR [95% CI]", "p", "p adjusted"],
            f.contrasts.map((c) => [
              `${c.second} vs ${c.first}`,
              `${pct(c.rateSecond)} / ${pct(c.rateFirst)}`,
              pp(c.riskDifference),
              `${num(c.oddsRatio)}${ci(c.ci95, (x) => num(x))}`,
              pValue(c.p),
              pValue(c.pAdjusted),
            ]),
          ),
        ],
  ];
}

registerReportSection({ name: "pairwise", toc: { id: "pairwise", label: "All pairwise" }, render: pairwise });
