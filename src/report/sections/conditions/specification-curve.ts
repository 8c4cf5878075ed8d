/** The specification curve chart with its summary, permutation test, GLMM refit and App. D paths. */
import type { SpecCurveResult } from "../../../analysis/index.js";
import { num, pct, pEquals, pValue, SPEC_CURVE_PATHS_TABLE } from "../../../analysis/index.js";
import { figure } from "../../blocks.js";
import { specCurveChart } from "../../charts.js";
import { type Content, el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function glmmParagraph(s: SpecCurveResult): Content {
  const g = s.glmm;
  if (!g) return "";
  if ("skipped" in g) return el("p", { class: "muted" }, `GLMM refit: skipped (${g.skipped}).`);
  if ("error" in g)
    return el("p", { class: "muted" }, `GLMM refit of the primary specification: not estimable (${g.error}).`);
  return el(
    "p",
    {},
    `GLMM refit of the primary specification (${g.formula}, Laplace): OR ${num(g.oddsRatio)} (95% CI ${num(g.ci95[0])}–${num(g.ci95[1])}), ${pEquals(g.p)}, random-intercept variance ${num(g.randomInterceptVariance)}.`,
  );
}

/**
 * ScaffoldSafety's App. D paths: all of them on a study that supports most, else the ones this
 * table supports and a count of the rest (a study without the paper's design does not get the
 * paper's whole list; analysis.json holds it).
 */
function pathsTable(s: SpecCurveResult): Content[] {
  if (!s.paths) return [];
  const unsupported = s.paths.filter((p) => p.status === "unsupported");
  const listed = unsupported.length > s.paths.length / 2 ? s.paths.filter((p) => p.status !== "unsupported") : s.paths;
  return [
    el("h3", {}, "Researcher degrees of freedom (ScaffoldSafety App. D)"),
    listed.length < s.paths.length
      ? el(
          "p",
          { class: "muted" },
          `${unsupported.length} of the paper's ${s.paths.length} paths are not supported by this study's table (its benchmarks and conditions); analysis.json lists them with the reason.`,
        )
      : "",
    htmlTable(SPEC_CURVE_PATHS_TABLE, listed),
  ];
}

function curve({ analysis }: ReportContext) {
  const s = analysis.specificationCurve;
  if ("skipped" in s)
    return [el("h2", { id: "curve" }, "Specification curve"), el("p", { class: "muted" }, `Skipped: ${s.skipped}`)];
  return [
    el("h2", { id: "curve" }, "Specification curve"),
    figure(
      specCurveChart(analysis),
      `${s.summary.n} specifications over ${s.dimensions.map((d) => d.name).join(", ")}`,
    ),
    el(
      "p",
      {},
      `Median OR ${num(s.summary.medianOddsRatio)} (IQR ${num(s.summary.iqrOddsRatio[0])}–${num(s.summary.iqrOddsRatio[1])}), ${pct(s.summary.shareSignificant, 0)} significant. `,
      s.permutation
        ? `Permutation test (${s.permutation.count} within-case label shuffles): p(median) = ${pValue(s.permutation.pMedian)}, p(share significant) = ${pValue(s.permutation.pShareSignificant)}.`
        : (s.permutationNote ?? ""),
    ),
    ...(s.excluded?.length
      ? [el("p", { class: "muted" }, `${s.excluded.length} combination(s) left out: ${s.excluded[0].reason}.`)]
      : []),
    ...(s.notes?.length ? [el("p", { class: "muted" }, s.notes.join("; "))] : []),
    glmmParagraph(s),
    ...pathsTable(s),
  ];
}

registerReportSection({
  name: "specificationCurve",
  toc: { id: "curve", label: "Specification curve" },
  render: curve,
});
