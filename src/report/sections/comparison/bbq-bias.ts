/** The BBQ bias score (ambiguous and disambiguated) with accuracy and the "unknown" rate. */
import { num, pct } from "../../../analysis/index.js";
import { el, table } from "../../html.js";
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
          table(
            [
              "benchmark",
              "model",
              "configuration",
              "ambiguous: n",
              "accuracy",
              "unknown",
              "s_AMB",
              "disambiguated: n",
              "accuracy",
              "unknown",
              "s_DIS",
            ],
            b.rows.map((r) => [
              r.benchmark,
              r.model,
              r.condition,
              r.ambiguous.n,
              pct(r.ambiguous.accuracy),
              pct(r.ambiguous.unknownRate),
              num(r.ambiguous.biasScore, 3),
              r.disambiguated.n,
              pct(r.disambiguated.accuracy),
              pct(r.disambiguated.unknownRate),
              num(r.disambiguated.biasScore, 3),
            ]),
          ),
        ],
  ];
}

registerReportSection({ name: "bbqBias", toc: { id: "bbq-bias", label: "BBQ bias score" }, render: bbqBias });
