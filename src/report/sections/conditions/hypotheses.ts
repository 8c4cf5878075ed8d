/** The interaction blocks and the trend with its isotonic fit. */
import { interactionsTable, num, pct, pEquals } from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function hypotheses({ analysis }: ReportContext) {
  const h = analysis.hypotheses;
  const t = h.trend;
  return [
    el("h2", { id: "hypotheses" }, "Interactions and trend"),
    htmlTable(interactionsTable(analysis.meta.comparisonFacet, h.secondaryAdjustment), h.interactions),
    t && !("error" in t)
      ? el(
          "p",
          {},
          `Trend over ${t.order.join(" < ")}: OR per step ${num(t.oddsRatioPerStep)}${ci(t.oddsRatioCi95, (v) => num(v))}, ${pEquals(t.p, `p (${t.alternative})`)}. Isotonic fit (${t.isotonicDirection}): `,
          t.rates.map((r) => `${r.level} ${pct(r.rate)} → ${pct(r.isotonic)}; `),
        )
      : el("p", { class: "muted" }, t ? `Trend: ${t.error}` : "Trend: not in the plan"),
    t && !("error" in t)
      ? el(
          "p",
          {},
          "error" in t.jonckheere
            ? `Jonckheere-Terpstra: not computable (${t.jonckheere.error}).`
            : `Jonckheere-Terpstra sensitivity check (order only, trial outcomes, no clustering): J = ${num(t.jonckheere.statistic, 1)}, z = ${num(t.jonckheere.z)}, ${pEquals(t.jonckheere.p, `p (${t.alternative})`)}.${t.unscored.length ? ` Not in the trend (no declared score): ${t.unscored.join(", ")}.` : ""}`,
        )
      : "",
  ];
}

registerReportSection({
  name: "hypotheses",
  toc: { id: "hypotheses", label: "Interactions and trend" },
  render: hypotheses,
});
