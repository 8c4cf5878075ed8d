/** Variance decomposition (eta^2, omega^2) and the generalizability coefficient. */
import { num, pct, pValue } from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { el, table } from "../../html.js";
import { type ReportContext, registerReportSection } from "../registry.js";

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
      : [
          el(
            "p",
            {},
            `G-study: object ${g.object} (n = ${g.nObjects}); facets ${g.facets.map((f, i) => `${f} (${g.facetTypes[f]}, n = ${g.facetSizes[i]})`).join(", ")}${g.fixedFacets.length ? `; averaged over ${g.fixedFacets.join(", ")}` : ""}. Variance components from the random-effects expected mean squares of the cell means (negative estimates truncated at 0 for the coefficients).`,
          ),
          table(
            ["source", "df", "mean square", "estimate", "truncated"],
            g.components.map((c) => [c.source, c.df, num(c.meanSquare, 5), num(c.estimate, 5), num(c.truncated, 5)]),
          ),
          table(
            ["design", "sizes", "Eρ²", "Φ", "bootstrap 95% CI of Eρ²"],
            [
              [
                `declared (${g.facets.map((f) => g.facetTypes[f]).join(" × ")})`,
                g.facetSizes.join(" × "),
                num(g.coefficient, 3),
                num(g.dependability, 3),
                ci(g.ci95, (x) => num(x, 3)) || "-",
              ],
              [
                "every facet random",
                g.facetSizes.join(" × "),
                num(g.allRandom.coefficient, 3),
                num(g.allRandom.dependability, 3),
                ci(g.allRandom.ci95, (x) => num(x, 3)) || "-",
              ],
              [
                "D-study, every facet random",
                g.dStudy.sizes.join(" × "),
                num(g.dStudy.allRandom.generalizability, 3),
                num(g.dStudy.allRandom.dependability, 3),
                "-",
              ],
              [
                "D-study, declared types",
                g.dStudy.sizes.join(" × "),
                num(g.dStudy.declared.generalizability, 3),
                num(g.dStudy.declared.dependability, 3),
                "-",
              ],
            ],
          ),
          g.notes.map((n) => el("p", { class: "muted" }, n)),
          el("p", { class: "muted" }, `Bootstrap over ${g.object}s, B = ${g.resamples}.`),
        ],
  ];
}

registerReportSection({ name: "variance", toc: { id: "variance", label: "Variance decomposition" }, render: variance });
