/** Each condition against the reference, per population, pooled and per benchmark. */
import {
  CONTRAST_TABLE,
  type ContrastScope,
  contrastGroups,
  num,
  pEquals,
  scopeLabel,
} from "../../../analysis/index.js";
import { type Content, el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function contrasts({ analysis }: ReportContext): Content {
  const out: Content[] = [el("h2", { id: "contrasts" }, "Each condition against the reference")];
  for (const population of ["itt", "pp"] as const) {
    const pc = analysis.contrasts[population];
    const primary = population === analysis.meta.primaryPopulation ? " (primary)" : "";
    const P = population.toUpperCase();
    if (pc.byFormat?.length) {
      out.push(
        el(
          "p",
          { class: "muted" },
          "Format is a facet: every risk difference, NNT/NNH and TOST verdict of this section is within one format, never pooled across formats (the omnibus test alone takes every format, with format as a fixed effect). Sections that pool formats say so under their heading.",
        ),
      );
      if (pc.pooled.omnibus && "chi2" in pc.pooled.omnibus) {
        out.push(
          el(
            "p",
            {},
            `${P}${primary}: omnibus Wald test over every format (${pc.pooled.formula}): chi2(${pc.pooled.omnibus.df}) = ${num(pc.pooled.omnibus.chi2)}, ${omnibusReading(pc.pooled, pc.pooled.omnibus.p)}`,
          ),
        );
      }
    }
    for (const group of contrastGroups(pc)) {
      const { pooled } = group;
      const at = group.format ? `, format ${group.format}` : "";
      out.push(el("h3", {}, `${P}${primary}: pooled${at}`));
      out.push(
        el(
          "p",
          { class: "muted" },
          `${pooled.formula}; ${pooled.nRows} rows, ${pooled.nClusters} cases; bootstrap B=${pooled.bootstrap.resamples}, seed ${pooled.bootstrap.seed}`,
        ),
      );
      out.push(htmlTable(CONTRAST_TABLE, pooled.contrasts));
      if (!pc.byFormat?.length && pooled.omnibus && "chi2" in pooled.omnibus) {
        out.push(
          el(
            "p",
            {},
            `Omnibus Wald test: chi2(${pooled.omnibus.df}) = ${num(pooled.omnibus.chi2)}, ${omnibusReading(pooled, pooled.omnibus.p)}`,
          ),
        );
      }
      for (const scope of [...group.byBenchmark, ...group.byModel]) {
        out.push(
          el("h4", {}, `${P}: ${scope.kind === "model" ? "" : "benchmark "}${scopeLabel(scope)}`),
          htmlTable(CONTRAST_TABLE, scope.contrasts),
        );
      }
    }
  }
  return out;
}

registerReportSection({ name: "contrasts", toc: { id: "contrasts", label: "Contrasts" }, render: contrasts });

/** The omnibus p value, or why the integrity gate left the test unread (too few clusters). */
function omnibusReading(scope: ContrastScope, p: number): string {
  return scope.omnibusNotInterpretable ? `not interpretable: ${scope.omnibusNotInterpretable}` : `${pEquals(p)}`;
}
