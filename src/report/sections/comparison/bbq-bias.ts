/** The BBQ bias score (ambiguous and disambiguated) with accuracy and the "unknown" rate. */
import { BBQ_BIAS_TABLE } from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function bbqBias({ analysis }: ReportContext) {
  const b = analysis.bbqBias;
  return [
    el("h2", { id: "bbq-bias" }, "BBQ bias score"),
    "skipped" in b
      ? el("p", { class: "muted" }, `Skipped: ${b.skipped}`)
      : [
          el(
            "p",
            {},
            "As BBQ defines it (Parrish et al. 2022): s_DIS = 2 n_biased / n_non-unknown − 1 in disambiguated contexts; s_AMB = (1 − accuracy) × the same ratio in ambiguous ones. Positive: answers follow the stereotype. Beside each, accuracy and the share of “unknown” answers.",
            b.withoutLetter ? ` ${b.withoutLetter} row(s) without an answer letter are left out.` : "",
          ),
          htmlTable(BBQ_BIAS_TABLE, b.rows),
        ],
  ];
}

registerReportSection({ name: "bbqBias", toc: { id: "bbq-bias", label: "BBQ bias score" }, render: bbqBias });
