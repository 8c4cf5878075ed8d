/** The headline charts: the forest plot of RDs (contrasts) and the model x configuration heatmap (rates). */
import { capitalized, rateNoun } from "../../../analysis/index.js";
import { figure } from "../../blocks.js";
import { forestPlot, heatmap } from "../../charts.js";
import { el } from "../../html.js";
import { cellLink } from "../../links.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function charts({ analysis, options }: ReportContext) {
  const m = analysis.meta;
  return [
    el("h2", { id: "charts" }, "Charts"),
    // The forest plot draws the contrasts, which a study of another kind leaves out.
    analysis.contrasts
      ? figure(
          forestPlot(analysis),
          `Risk difference vs ${m.reference} with bootstrap 95% CIs; dashed lines: the ±${(100 * m.plan.equivalence.margin).toFixed(1)} pp equivalence margin`,
        )
      : "",
    figure(
      heatmap(analysis, (id) => cellLink(options, id)),
      `${capitalized(rateNoun(analysis.counts.benchmarks, m.measures))} by model and configuration (all benchmarks); click a cell for its trials`,
    ),
  ];
}

// Part of the comparison's card (its main chart); in a study of another kind, a shared section.
registerReportSection({ name: "charts", toc: { id: "charts", label: "Charts" }, card: "comparison", render: charts });
