/** Variance decomposition (eta^2, omega^2) and the generalizability coefficient. */
import {
  DECOMPOSITION_TABLE,
  decompositionRows,
  G_COMPONENTS_TABLE,
  G_DESIGNS_TABLE,
  gDesignRows,
} from "../../../analysis/index.js";
import { el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function variance({ analysis }: ReportContext) {
  const v = analysis.variance.decomposition;
  const g = analysis.variance.generalizability;
  return [
    el("h2", { id: "variance" }, "Variance decomposition and generalizability"),
    "error" in v
      ? el("p", { class: "muted" }, `Not computable: ${v.error}`)
      : htmlTable(DECOMPOSITION_TABLE, decompositionRows(v)),
    "error" in g
      ? el("p", { class: "muted" }, `Generalizability: ${g.error}`)
      : [
          el(
            "p",
            {},
            `G-study: object ${g.object} (n = ${g.nObjects}); facets ${g.facets.map((f, i) => `${f} (${g.facetTypes[f]}, n = ${g.facetSizes[i]})`).join(", ")}${g.fixedFacets.length ? `; averaged over ${g.fixedFacets.join(", ")}` : ""}. Variance components from the random-effects expected mean squares of the cell means (negative estimates truncated at 0 for the coefficients).`,
          ),
          htmlTable(G_COMPONENTS_TABLE, g.components),
          htmlTable(G_DESIGNS_TABLE, gDesignRows(g)),
          g.notes.map((n) => el("p", { class: "muted" }, n)),
          el("p", { class: "muted" }, `Bootstrap over ${g.object}s, B = ${g.resamples}.`),
        ],
  ];
}

registerReportSection({ name: "variance", toc: { id: "variance", label: "Variance decomposition" }, render: variance });
