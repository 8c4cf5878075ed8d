/** The specification curve with its permutation test (ScaffoldSafety 6.5). */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { analyzeScope } from "../core/contrast-model.js";
import { analysedRows } from "../core/plan.js";
import { type SpecCurveResult, specificationCurve } from "./spec-curve.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import { defineTable } from "../core/result-table.js";
import { distinctReasons, num, pct, pEquals, pValue, wrap } from "../core/text.js";
import type { SpecCurvePath } from "./spec-curve-paths.js";
import { pooledFormatsNote } from "./format-pooling.js";

declare module "../core/registry.js" {
  interface AnalysisResults {
    specificationCurve: SpecCurveResult | Skipped;
  }
}

/**
 * Starts the curve: resolves once its permutation test is at work on worker threads (or the curve
 * is done without them), with the promise of the result.
 */
async function startCurve(ctx: AnalysisContext): Promise<{ result: Promise<SpecCurveResult | Skipped> }> {
  const curvePlan = ctx.plan.specification_curve;
  if (curvePlan === false) return { result: Promise.resolve({ skipped: "not in the plan" }) };
  const population = ctx.plan.population;
  // The pooled contrasts as the contrasts analysis computes them (the fit is shared through
  // fitScopeGlm's cache), so the curve need not wait for that analysis.
  const pooled = analyzeScope("pooled", ctx.scored[population], {
    population,
    levels: ctx.resolved.levels,
    setup: ctx.setup,
    plan: ctx.plan,
  });
  // Default contrast: the condition with the largest pooled |RD|.
  const contrast =
    curvePlan.contrast ??
    [...pooled.contrasts].sort(
      (a, b) => Math.abs(b.riskDifference?.estimate ?? 0) - Math.abs(a.riskDifference?.estimate ?? 0),
    )[0]?.condition;
  if (!contrast) return { result: Promise.resolve({ skipped: "no contrast to follow" }) };
  const followed = pooled.contrasts.find((c) => c.condition === contrast);
  if (followed?.notComparable)
    return { result: Promise.resolve({ skipped: `${contrast}: ${followed.notComparable} with the reference` }) };
  const { comparisonFacet, reference, levels } = ctx.resolved;
  if (!levels.includes(contrast))
    return { result: Promise.resolve({ skipped: `contrast '${contrast}' is not a level in the data` }) };
  // The scorer dimension compares stored scorers of the same trials, so it reads every scorer's rows
  // (the analysed rows themselves when the table holds one scorer: no second half-million-row list).
  const scorerRows =
    ctx.input && (ctx.input.rows === ctx.table.rows ? ctx.rows : analysedRows(ctx.input.rows, ctx.resolved));
  let permutationsStarted!: () => void;
  const atWork = new Promise<void>((resolve) => {
    permutationsStarted = resolve;
  });
  const result = specificationCurve({
    rows: ctx.rows,
    facet: comparisonFacet,
    reference,
    contrast,
    facets: ctx.table.facets,
    plan: ctx.plan,
    scorerRows,
    onPermutationsStarted: permutationsStarted,
  }).then((curve): SpecCurveResult | Skipped => curve ?? { skipped: "not in the plan" });
  await Promise.race([atWork, result]);
  return { result };
}

/** ScaffoldSafety's App. D paths with what this study's curve does with each (the report). */
export const SPEC_CURVE_PATHS_TABLE = defineTable<SpecCurvePath>({
  name: "researcher degrees of freedom",
  columns: [
    { key: "id", header: "#", align: "right", cell: (p) => String(p.id) },
    { key: "category", header: "category", cell: (p) => p.category },
    { key: "path", header: "path", cell: (p) => p.path },
    {
      key: "here",
      header: "here",
      cell: (p) =>
        p.status === "varied" ? "varied" : p.status === "available" ? "available (not in the plan)" : "not supported",
    },
    {
      key: "how",
      header: "how / why not",
      cell: (p) => [p.dimension ? `dimension ${p.dimension}` : "", p.reason ?? ""].filter(Boolean).join(": "),
    },
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const s = analysis.specificationCurve;
  if ("skipped" in s) return [`specification curve: skipped (${s.skipped})`, ""];
  const perm = s.permutation
    ? `; permutation p (median) = ${pValue(s.permutation.pMedian)}, (share significant) = ${pValue(s.permutation.pShareSignificant)} over ${s.permutation.count}`
    : s.permutationNote
      ? `; ${s.permutationNote}`
      : "";
  const heading = `specification curve for ${s.contrast} vs ${s.reference}`;
  if (s.summary.n === 0) return [`${heading}: not estimable: ${failureReasons(s)}`, ""];
  return [
    `${heading}: ${s.summary.n} specifications over ${s.dimensions.map((d) => d.name).join(", ")}`,
    `  median OR ${num(s.summary.medianOddsRatio)} (IQR ${num(s.summary.iqrOddsRatio[0])} to ${num(s.summary.iqrOddsRatio[1])}), ${pct(s.summary.shareSignificant, 0)} significant${perm}`,
    ...aliasedLines(s),
    ...(s.failed.length ? [`  ${s.failed.length} specification(s) not estimable: ${failureReasons(s)}`] : []),
    ...(s.excluded?.length ? [`  ${s.excluded.length} combination(s) left out: ${s.excluded[0].reason}`] : []),
    "glmm" in s ? glmmLine(s) : "",
    ...(s.paths ? [pathsLine(s)] : []),
    "",
  ].filter((line, i, all) => line !== "" || i === all.length - 1);
}

/** Each distinct reason a specification was not estimable, with how many it stopped. */
function failureReasons(s: Pick<SpecCurveResult, "failed">): string {
  return distinctReasons(s.failed.map((f) => f.error));
}

/** The design columns the fits left out as aliased (R's NA), with how many specifications each. */
function aliasedLines(s: SpecCurveResult): string[] {
  const counts = new Map<string, number>();
  for (const spec of s.specifications) for (const c of spec.aliased ?? []) counts.set(c, (counts.get(c) ?? 0) + 1);
  if (counts.size === 0) return [];
  const list = [...counts].map(([c, n]) => `${c} (${n} of ${s.specifications.length})`).join(", ");
  return wrap(`  aliased columns left out, as R's glm does (linear combinations of earlier columns): ${list}`);
}

function glmmLine(s: SpecCurveResult): string {
  const g = s.glmm;
  if ("skipped" in g) return `  GLMM refit: skipped (${g.skipped})`;
  if ("error" in g) return `  GLMM refit: not estimable (${g.error})`;
  return `  GLMM refit of the primary specification (case random intercept): OR ${num(g.oddsRatio)} (95% CI ${num(g.ci95[0])} to ${num(g.ci95[1])}), ${pEquals(g.p)}`;
}

function pathsLine(s: SpecCurveResult): string {
  const count = (status: string) => s.paths.filter((p) => p.status === status).length;
  return `  App. D paths: ${count("varied")} varied, ${count("available")} available, ${count("unsupported")} not supported by this table (see the report)`;
}

registerAnalysis({
  name: "specificationCurve",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({ specification_curve: true, population: true }),
  result: "specificationCurve",
  start: startCurve,
  // It reads no other analysis's result: its permutation test starts with the first analyses.
  startsAfter: [],
  summary: ({ analysis }) => summaryLines(analysis),
});
