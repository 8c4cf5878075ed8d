/** Variance decomposition (Type II ANOVA, eta^2, omega^2) and the G-study (ScaffoldSafety App. O). */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type AnalysisContext, registerAnalysis, type StudyAnalysis } from "../registry.js";
import { bracket, num, pct, pValue, textTable } from "../text.js";
import {
  type Generalizability,
  generalizability,
  type VarianceDecomposition,
  varianceDecomposition,
} from "./variance.js";
import { pooledFormatsNote } from "./format-pooling.js";

declare module "../registry.js" {
  interface AnalysisResults {
    variance: {
      decomposition: VarianceDecomposition | { error: string };
      generalizability: Generalizability | { error: string };
    };
  }
}

function variance(ctx: AnalysisContext) {
  const { comparisonFacet: facet } = ctx.resolved;
  const otherFacets = ctx.setup.covariateFacets;
  return {
    decomposition: varianceDecomposition(ctx.main, facet, otherFacets),
    generalizability: generalizability(ctx.main, facet, otherFacets, ctx.plan),
  };
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const out: string[] = [];
  const v = analysis.variance.decomposition;
  if ("error" in v) out.push(`variance decomposition: not computable (${v.error})`);
  else {
    out.push("variance decomposition (Type II ANOVA on the 0/1 outcome)");
    out.push(
      ...textTable(
        ["term", "df", "eta^2", "omega^2", "p"],
        [
          ...v.rows.map((r) => [r.term, String(r.df), pct(r.etaSq, 2), pct(r.omegaSq, 2), pValue(r.p)]),
          ["residual", String(v.residual.df), pct(v.residual.share, 2), "", ""],
        ],
      ),
    );
    if (v.aliased?.length) out.push(`  ${aliasedLine(v.aliased)}`);
  }
  const g = analysis.variance.generalizability;
  if ("error" in g) out.push(`generalizability: not computable (${g.error})`);
  else {
    const types = g.facets.map((f) => `${f} ${g.facetTypes[f]}`).join(", ");
    out.push(
      `generalizability (object ${g.object}, n=${g.nObjects}; facets ${types}${g.fixedFacets.length ? `; averaged over ${g.fixedFacets.join(", ")}` : ""}): E rho^2 = ${num(g.coefficient, 3)} ${bracket(g.ci95, (x) => num(x, 3))}, Phi = ${num(g.dependability, 3)}`,
      `  every facet random: E rho^2 = ${num(g.allRandom.coefficient, 3)} ${bracket(g.allRandom.ci95, (x) => num(x, 3))}, Phi = ${num(g.allRandom.dependability, 3)}`,
      `  D-study at ${g.dStudy.sizes.join(" x ")} (${g.facets.join(" x ")}): every facet random E rho^2 = ${num(g.dStudy.allRandom.generalizability, 3)}, Phi = ${num(g.dStudy.allRandom.dependability, 3)}; declared types E rho^2 = ${num(g.dStudy.declared.generalizability, 3)}`,
      `  components: ${g.components.map((c) => `${c.source} ${num(c.estimate, 5)}`).join(", ")}`,
      ...g.notes.map((n) => `  note: ${n}`),
    );
  }
  return [...out, ""];
}

/** The dropped columns, named up to a terminal line's worth (analysis.json lists them all). */
function aliasedLine(aliased: readonly string[]): string {
  const shown: string[] = [];
  let width = 0;
  for (const name of aliased) {
    if (shown.length > 0 && width + name.length > 90) break;
    shown.push(name);
    width += name.length + 2;
  }
  const more = aliased.length - shown.length;
  return `aliased columns left out, as R's lm does (levels the grid does not cross): ${shown.join(", ")}${more ? ` and ${more} more` : ""}`;
}

registerAnalysis({
  name: "variance",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({ generalizability: true, population: true, bootstrap: true }),
  result: "variance",
  run: variance,
  summary: ({ analysis }) => summaryLines(analysis),
});
