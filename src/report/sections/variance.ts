/** Variance decomposition (eta^2, omega^2) and the generalizability coefficient. */
import { num, pct, pValue } from "../../analysis/index.js";
import { ci } from "../blocks.js";
import { el, table } from "../html.js";
import { type ReportContext, registerReportSection } from "./registry.js";

function variance({ analysis }: ReportContext) {
  const v = analysis.variance.decomposition;
  const g = analysis.variance.generalizability;
  return [
    el("h2", { id: "variance" }, "Variance decomposition and generalizability"),
    "error" in v
      ? el("p", { class: "muted" }, `Not computable: ${v.error}`)
      : table(
          ["term", "df", "eta²", "omega²", "F", "p"],
          [
            ...v.rows.map((r) => [r.term, r.df, pct(r.etaSq, 2), pct(r.omegaSq, 2), num(r.F), pValue(r.p)]),
            ["residual", v.residual.df, pct(v.residual.share, 2), "", "", ""],
          ],
        ),
    "error" in g
      ? el("p", { class: "muted" }, `Generalizability: ${g.error}`)
      : el(
          "p",
          {},
          `Generalizability coefficient (object ${g.object}; random facets ${g.facets.join(", ")}${g.fixedFacets.length ? `; averaged over ${g.fixedFacets.join(", ")}` : ""}): Eρ² = ${num(g.coefficient, 3)}${ci(g.ci95, (x) => num(x, 3))} (bootstrap over ${g.object}s, B=${g.resamples}).`,
        ),
  ];
}

registerReportSection({ name: "variance", toc: { id: "variance", label: "Variance decomposition" }, render: variance });
