/**
 * Specification curve (ScaffoldSafety 6.5, App. D, Q.3.5) over the researcher degrees of freedom
 * a tidy table lets us vary: benchmark and model subsets (leave one out), ITT vs PP, errored
 * trials excluded or counted unsafe, logit vs probit, adjusted or not, and facets whose levels
 * are alternative operationalisations (e.g. two scorers). Each specification refits the
 * cluster-robust regression; the curve is summarised by its median odds ratio, IQR and share
 * significant, and tested by permuting condition labels within each case.
 */
import type { AnalysisPlan, SpecCurveDimension } from "../contracts/analysis.js";
import type { Dimension, Specification } from "../stats/index.js";
import { coefficientTable, runSpecificationCurve, summarizeCurve } from "../stats/index.js";
import { fitScopeGlm } from "./contrasts.js";
import { attempt, distinctValues, type Population, scoredRows } from "./data.js";
import type { AnalysisRow } from "./table.js";

export interface SpecCurveResult {
  contrast: string;
  reference: string;
  dimensions: { name: string; options: string[] }[];
  specifications: { spec: Record<string, string>; oddsRatio: number; logOddsRatio: number; p: number; n: number }[];
  failed: { spec: Record<string, string>; error: string }[];
  summary: {
    n: number;
    medianOddsRatio: number;
    iqrOddsRatio: [number, number];
    rangeOddsRatio: [number, number];
    shareSignificant: number;
    shareSignificantInDirection: number;
  };
  permutation: {
    count: number;
    pMedian: number;
    pShareSignificant: number;
    pShareSignificantInDirection: number;
  } | null;
  permutationNote: string | null;
  alpha: number;
}

interface CurveContext {
  rows: readonly AnalysisRow[];
  /** The rows a specification keeps, computed once per specification. */
  kept: (spec: Specification) => Int32Array;
  facet: string;
  reference: string;
  contrast: string;
  facets: readonly string[];
}

/** Probit coefficients are put on the log-odds scale by the logistic SD ratio pi/sqrt(3). */
const PROBIT_TO_LOGIT = Math.PI / Math.sqrt(3);

function dimensionsFor(ctx: CurveContext, plan: Exclude<AnalysisPlan["specification_curve"], false>): Dimension[] {
  const benchmarks = distinctValues(ctx.rows.map((r) => r.benchmark));
  const models = distinctValues(ctx.rows.map((r) => r.model));
  const leaveOneOut = (values: string[]) => ["all", ...(values.length > 2 ? values.map((v) => `without ${v}`) : [])];
  const options: Record<SpecCurveDimension, string[]> = {
    benchmark_subset: leaveOneOut(benchmarks),
    model_subset: leaveOneOut(models),
    population: ["itt", "pp"],
    errored: ["exclude", "unsafe"],
    link: ["logit", "probit"],
    adjustment: ["adjusted", "unadjusted"],
  };
  const dims: Dimension[] = plan.dimensions.map((name) => ({ name, options: options[name] }));
  for (const f of plan.facet_subsets) {
    dims.push({ name: `facet:${f}`, options: ["all", ...distinctValues(ctx.rows.map((r) => r.facets[f]))] });
  }
  return dims;
}

/** Indices of the rows a specification keeps (its subsets); labels do not change them. */
function keptIndices(spec: Specification, rows: readonly AnalysisRow[]): Int32Array {
  const keep = (value: string, choice: unknown) =>
    choice === undefined || choice === "all" || choice !== `without ${value}`;
  const facetChoices = Object.entries(spec).filter(([name, choice]) => name.startsWith("facet:") && choice !== "all");
  const kept: number[] = [];
  rows.forEach((row, i) => {
    if (!keep(row.benchmark, spec.benchmark_subset) || !keep(row.model, spec.model_subset)) return;
    if (facetChoices.some(([name, choice]) => row.facets[name.slice(6)] !== choice)) return;
    kept.push(i);
  });
  return Int32Array.from(kept);
}

function selectFor(spec: Specification, rows: readonly AnalysisRow[], kept: Int32Array) {
  const picked = Array.from(kept, (i) => rows[i]);
  return scoredRows(picked, (spec.population as Population | undefined) ?? "itt", {
    errored: spec.errored === "unsafe" ? "unsafe" : "exclude",
  });
}

/** The rows with the comparison facet's labels replaced (one copy per permutation, shared by every spec). */
function relabel(ctx: CurveContext, labels: readonly string[]): AnalysisRow[] {
  return ctx.rows.map((row, i) => ({ ...row, facets: { ...row.facets, [ctx.facet]: labels[i] } }));
}

function analyzeSpec(spec: Specification, ctx: CurveContext, rows: readonly AnalysisRow[]) {
  const scored = selectFor(spec, rows, ctx.kept(spec));
  const covariateFacets = ctx.facets.filter((f) => !(spec[`facet:${f}`] !== undefined && spec[`facet:${f}`] !== "all"));
  const link = spec.link === "probit" ? "probit" : "logit";
  const { fit } = fitScopeGlm(scored, {
    comparisonFacet: ctx.facet,
    reference: ctx.reference,
    covariateFacets,
    link,
    adjust: spec.adjustment !== "unadjusted",
  });
  const row = coefficientTable(fit, "cluster").find((r) => r.name === `${ctx.facet}[T.${ctx.contrast}]`);
  if (!row) throw new Error(`no coefficient for ${ctx.facet}=${ctx.contrast}`);
  const scale = link === "probit" ? PROBIT_TO_LOGIT : 1;
  return { estimate: row.estimate * scale, p: row.p, n: scored.length };
}

/** Shuffles the condition labels within each case (same model, item, attempt, other facets). */
function permutedLabels(ctx: CurveContext, permute: <T>(items: readonly T[]) => T[]): string[] {
  const rank = new Int32Array(ctx.rows.length);
  permute([...ctx.rows.keys()]).forEach((rowIndex, position) => {
    rank[rowIndex] = position;
  });
  const groups = new Map<string, number[]>();
  ctx.rows.forEach((r, i) => {
    const key = [
      r.model,
      r.cluster,
      r.attempt,
      ...ctx.facets.filter((f) => f !== ctx.facet).map((f) => r.facets[f]),
    ].join("\u0000");
    const list = groups.get(key);
    if (list) list.push(i);
    else groups.set(key, [i]);
  });
  const labels = ctx.rows.map((r) => r.facets[ctx.facet]);
  for (const members of groups.values()) {
    // The relative order of a group's rows within one uniform permutation is itself uniform.
    const order = [...members].sort((a, b) => rank[a] - rank[b]);
    order.forEach((rowIndex, k) => {
      labels[rowIndex] = ctx.rows[members[k]].facets[ctx.facet];
    });
  }
  return labels;
}

export async function specificationCurve(
  rows: readonly AnalysisRow[],
  facet: string,
  reference: string,
  contrast: string,
  facets: readonly string[],
  plan: AnalysisPlan,
): Promise<SpecCurveResult | null> {
  const curvePlan = plan.specification_curve;
  if (curvePlan === false) return null;
  const keptBySpec = new Map<string, Int32Array>();
  const kept = (spec: Specification): Int32Array => {
    const key = JSON.stringify(spec);
    let indices = keptBySpec.get(key);
    if (!indices) {
      indices = keptIndices(spec, rows);
      keptBySpec.set(key, indices);
    }
    return indices;
  };
  const ctx: CurveContext = { rows, kept, facet, reference, contrast, facets };
  const dimensions = dimensionsFor(ctx, curvePlan);
  const failed: SpecCurveResult["failed"] = [];
  const sizes = new Map<string, number>();
  // Relabeled rows per permutation (the runner hands every spec the same permute function).
  const rowsCache = new WeakMap<object, AnalysisRow[]>();
  const alpha = plan.multiplicity.alpha;
  const observe = (spec: Specification) => {
    const result = attempt(() => analyzeSpec(spec, ctx, rows));
    if ("error" in result) {
      failed.push({ spec: stringSpec(spec), error: result.error });
      return { estimate: Number.NaN, p: Number.NaN };
    }
    sizes.set(JSON.stringify(spec), result.value.n);
    return result.value;
  };
  let curve = await runSpecificationCurve({ dimensions, alpha, analyze: observe });
  let permutationNote: string | null = null;
  if (curvePlan.permutations > 0 && failed.length === 0) {
    let nullFailures = 0;
    const cached = new Map(curve.specifications.map((s) => [JSON.stringify(s.spec), s.result]));
    curve = await runSpecificationCurve({
      dimensions,
      alpha,
      analyze: (spec) => cached.get(JSON.stringify(spec))!,
      permutation: {
        count: curvePlan.permutations,
        seed: curvePlan.seed,
        analyzePermuted: (spec, permute) => {
          let permuted = rowsCache.get(permute);
          if (!permuted) {
            permuted = relabel(ctx, permutedLabels(ctx, permute));
            rowsCache.set(permute, permuted);
          }
          const rowsOfPermutation = permuted;
          const result = attempt(() => analyzeSpec(spec, ctx, rowsOfPermutation));
          if ("value" in result) return result.value;
          // A null specification that cannot be fitted counts as no effect, not significant.
          nullFailures++;
          return { estimate: 0, p: 1 };
        },
      },
    });
    if (nullFailures > 0) permutationNote = `${nullFailures} permuted fit(s) not estimable, counted as no effect`;
  } else if (curvePlan.permutations > 0) {
    permutationNote = "permutation test not run: some specifications are not estimable";
  }
  const ok = curve.specifications.filter((s) => Number.isFinite(s.result.estimate));
  const s = summarizeCurve(
    ok.map((o) => o.result),
    alpha,
  );
  return {
    contrast,
    reference,
    dimensions: dimensions.map((d) => ({ name: d.name, options: d.options.map(String) })),
    specifications: ok.map(({ spec, result }) => ({
      spec: stringSpec(spec),
      oddsRatio: Math.exp(result.estimate),
      logOddsRatio: result.estimate,
      p: result.p,
      n: sizes.get(JSON.stringify(spec)) ?? 0,
    })),
    failed,
    summary: {
      n: ok.length,
      medianOddsRatio: Math.exp(s.median),
      iqrOddsRatio: [Math.exp(s.q1), Math.exp(s.q3)],
      rangeOddsRatio: [Math.exp(s.min), Math.exp(s.max)],
      shareSignificant: s.shareSignificant,
      shareSignificantInDirection: s.shareSignificantInDirection,
    },
    permutation: curve.permutation
      ? {
          count: curve.permutation.count,
          pMedian: curve.permutation.pMedian,
          pShareSignificant: curve.permutation.pShareSignificant,
          pShareSignificantInDirection: curve.permutation.pShareSignificantInDirection,
        }
      : null,
    permutationNote,
    alpha,
  };
}

function stringSpec(spec: Specification): Record<string, string> {
  return Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, String(v)]));
}
