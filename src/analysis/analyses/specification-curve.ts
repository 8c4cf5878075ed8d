/** The specification curve with its permutation test (ScaffoldSafety 6.5). */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type SpecCurveResult, specificationCurve } from "../spec-curve.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../registry.js";
import { num, pct, pValue } from "../text.js";

declare module "../registry.js" {
  interface AnalysisResults {
    specificationCurve: SpecCurveResult | Skipped;
  }
}

async function curve(ctx: AnalysisContext): Promise<SpecCurveResult | Skipped> {
  const curvePlan = ctx.plan.specification_curve;
  if (curvePlan === false) return { skipped: "not in the plan" };
  const pooled = ctx.results.contrasts?.[ctx.plan.population].pooled;
  // Default contrast: the condition with the largest pooled |RD|.
  const contrast =
    curvePlan.contrast ??
    [...(pooled?.contrasts ?? [])].sort(
      (a, b) => Math.abs(b.riskDifference?.estimate ?? 0) - Math.abs(a.riskDifference?.estimate ?? 0),
    )[0]?.condition;
  if (!contrast) return { skipped: "no contrast to follow" };
  const { comparisonFacet, reference, levels } = ctx.resolved;
  if (!levels.includes(contrast)) return { skipped: `contrast '${contrast}' is not a level in the data` };
  const result = await specificationCurve(ctx.rows, comparisonFacet, reference, contrast, ctx.table.facets, ctx.plan);
  return result ?? { skipped: "not in the plan" };
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const s = analysis.specificationCurve;
  if ("skipped" in s) return [`specification curve: skipped (${s.skipped})`, ""];
  const perm = s.permutation
    ? `; permutation p (median) = ${pValue(s.permutation.pMedian)}, (share significant) = ${pValue(s.permutation.pShareSignificant)} over ${s.permutation.count}`
    : s.permutationNote
      ? `; ${s.permutationNote}`
      : "";
  return [
    `specification curve for ${s.contrast} vs ${s.reference}: ${s.summary.n} specifications over ${s.dimensions.map((d) => d.name).join(", ")}`,
    `  median OR ${num(s.summary.medianOddsRatio)} (IQR ${num(s.summary.iqrOddsRatio[0])} to ${num(s.summary.iqrOddsRatio[1])}), ${pct(s.summary.shareSignificant, 0)} significant${perm}`,
    ...(s.failed.length ? [`  ${s.failed.length} specification(s) not estimable`] : []),
    "",
  ];
}

registerAnalysis({
  name: "specificationCurve",
  plan: AnalysisPlanSchema.pick({ specification_curve: true, population: true }),
  result: "specificationCurve",
  run: curve,
  summary: ({ analysis }) => summaryLines(analysis),
});
