/** Paired flips (McNemar) and the change by item difficulty. */
import { num, pct, pp, pValue } from "../../../analysis/index.js";
import { el, table } from "../../html.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function paired({ analysis }: ReportContext) {
  return [
    el("h2", { id: "paired" }, "Paired flips and item difficulty"),
    table(
      ["benchmark", "condition", "pairs", "churn", "net", "lost / gained", "McNemar exact p"],
      analysis.paired.flips.map((f) => [
        f.benchmark,
        f.condition,
        f.pairs,
        pct(f.flips?.churn),
        pp(f.flips?.net),
        f.mcnemar && "b" in f.mcnemar ? `${f.mcnemar.b} / ${f.mcnemar.c}` : "-",
        f.notInterpretable
          ? `not interpretable: ${f.notInterpretable}`
          : f.mcnemar && "exact" in f.mcnemar
            ? pValue(f.mcnemar.exact.p)
            : "-",
      ]),
    ),
    table(
      [
        "condition",
        "items",
        "Spearman rho (difficulty, change)",
        "p",
        ...["≥80%", "20–80%", "<20%"].map((b) => `change, reference accuracy ${b}`),
      ],
      analysis.paired.difficulty.map((d) => [
        d.condition,
        d.items,
        "rho" in d.spearman ? num(d.spearman.rho) : d.spearman.error,
        d.pNotInterpretable
          ? `not interpretable: ${d.pNotInterpretable}`
          : "p" in d.spearman
            ? pValue(d.spearman.p)
            : "-",
        ...d.bands.map((b) => `${pp(b.meanChange)} (${b.items})`),
      ]),
    ),
  ];
}

registerReportSection({ name: "paired", toc: { id: "paired", label: "Paired flips" }, render: paired });
