/** The all-pairwise family of the primary configurations. */
import { PAIRWISE_TABLE } from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
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
          htmlTable(PAIRWISE_TABLE, f.contrasts),
        ],
  ];
}

registerReportSection({ name: "pairwise", toc: { id: "pairwise", label: "All pairwise" }, render: pairwise });
