/**
 * Secondary hypotheses (ScaffoldSafety 4.4-4.6, App. Q.3.2): interaction blocks condition x
 * model (H2) and condition x benchmark (H3) as joint cluster-robust Wald tests of the
 * interaction columns added to the primary model, and the ordinal trend (H4) with an isotonic
 * fit of the pooled rates as its sensitivity check.
 */
import type { AliasedColumn, WaldTest } from "../../stats/index.js";
import {
  coefficientTable,
  isotonicRegression,
  jonckheereTerpstra,
  ordinalTrendTest,
  termWaldTest,
} from "../../stats/index.js";
import { fitScopeGlm, type GlmSetup } from "../core/contrast-model.js";
import { attempt, columnTable, type ScoredRow, sumOf } from "../core/data.js";
import type { ResolvedPlan } from "../core/plan.js";

export interface InteractionResult {
  /** The other variable of the block (model, benchmark or a facet). */
  with: string;
  formula: string;
  test: (WaldTest & { pAdjusted: number | null }) | null;
  /** The comparison facet's main-effect block inside the interaction model (reference levels of `with`). */
  mainEffectInModel: WaldTest | null;
  /** Interaction coefficients as odds-ratio multipliers. */
  coefficients: { name: string; oddsRatio: number; ci95: [number, number]; p: number }[];
  skipped: string | null;
  /** Set by the integrity gate: why the test cannot be read (too few clusters for its model). */
  notInterpretable?: string;
}

export function interactionTests(
  scored: readonly ScoredRow[],
  setup: GlmSetup,
  plan: ResolvedPlan,
): InteractionResult[] {
  return plan.plan.hypotheses.interactions.map((other) => interactionTest(scored, setup, other));
}

function levelsOf(scored: readonly ScoredRow[], column: string): number {
  const get =
    column === "model"
      ? (s: ScoredRow) => s.row.model
      : column === "benchmark"
        ? (s: ScoredRow) => s.row.benchmark
        : (s: ScoredRow) => s.row.facets[column];
  return new Set(scored.map(get)).size;
}

function interactionTest(scored: readonly ScoredRow[], setup: GlmSetup, other: string): InteractionResult {
  const empty = { with: other, formula: "", test: null, mainEffectInModel: null, coefficients: [] };
  const known = other === "model" || other === "benchmark" || setup.covariateFacets.includes(other);
  if (!known || other === setup.comparisonFacet)
    return { ...empty, skipped: `'${other}' is not a model, benchmark or other facet column` };
  const levels = levelsOf(scored, other);
  if (levels < 2) return { ...empty, skipped: `only one ${other} in the data` };
  const term = `${setup.comparisonFacet}:${other}`;
  const fitted = attempt(() => fitScopeGlm(scored, { ...setup, extraTerms: [term] }));
  if ("error" in fitted) return { ...empty, skipped: `model not estimable: ${fitted.error}` };
  const { fit, formula } = fitted.value;
  const test = attempt(() => termWaldTest(fit, term, "cluster"));
  const main = attempt(() => termWaldTest(fit, setup.comparisonFacet, "cluster"));
  const names = new Set(
    fit.design.terms
      .find((t) => t.variables.length === 2 && t.variables.includes(other))
      ?.columns.map((c) => fit.design.columnNames[c]),
  );
  const coefficients = coefficientTable(fit, "cluster")
    .filter((row) => names.has(row.name))
    .map((row) => ({
      name: row.name,
      oddsRatio: Math.exp(row.estimate),
      ci95: [Math.exp(row.ciLower), Math.exp(row.ciUpper)] as [number, number],
      p: row.p,
    }));
  return {
    with: other,
    formula,
    test: "value" in test ? { ...test.value, pAdjusted: null } : null,
    mainEffectInModel: "value" in main ? main.value : null,
    coefficients,
    skipped: "error" in test ? `Wald test not computable: ${test.error}` : null,
  };
}

export interface TrendResult {
  order: string[];
  scores: Record<string, number>;
  alternative: "two-sided" | "less" | "greater";
  slope: number;
  se: number;
  z: number;
  p: number;
  pTwoSided: number;
  pAdjusted: number | null;
  oddsRatioPerStep: number;
  oddsRatioCi95: [number, number];
  /** Pooled rates along the ordering and their isotonic (monotone) fit. */
  rates: { level: string; n: number; rate: number; isotonic: number }[];
  isotonicDirection: "increasing" | "decreasing";
  /** Compared levels without a declared score (not in the trend). */
  unscored: string[];
  /** Design columns of the trend model left out as linear combinations of earlier ones (R's NA). */
  aliased: AliasedColumn[];
  /**
   * Jonckheere-Terpstra on the trial outcomes grouped by ascending score (levels sharing a score
   * pooled), tie-corrected normal approximation: H4's sensitivity check (App. Q.3.2). It uses
   * the order only, not the score values, and ignores the case clustering (descriptive).
   */
  jonckheere: JonckheereSummary | { error: string };
}

export interface JonckheereSummary {
  statistic: number;
  mean: number;
  variance: number;
  z: number;
  /** p in the trend's alternative ('less': outcomes fall along the order). */
  p: number;
  pTwoSided: number;
  groups: { scores: number; levels: string[]; n: number }[];
}

/** JT over the rows of the trend's levels, grouped by ascending score. */
export function jonckheereOfTrend(
  scored: readonly ScoredRow[],
  facet: string,
  trend: { order: string[]; scores: Record<string, number>; alternative: "two-sided" | "less" | "greater" },
): JonckheereSummary | { error: string } {
  const distinct = [...new Set(trend.order.map((l) => trend.scores[l]))].sort((a, b) => a - b);
  const groups = distinct.map((score) => {
    const levels = trend.order.filter((l) => trend.scores[l] === score);
    const values = scored.filter((s) => levels.includes(s.row.facets[facet])).map((s) => s.y);
    return { scores: score, levels, values };
  });
  const used = groups.filter((g) => g.values.length > 0);
  const result = attempt(() => jonckheereTerpstra(used.map((g) => g.values)));
  if ("error" in result) return { error: result.error };
  const r = result.value;
  return {
    statistic: r.statistic,
    mean: r.mean,
    variance: r.variance,
    z: r.z,
    p: trend.alternative === "less" ? r.pDecreasing : trend.alternative === "greater" ? r.pIncreasing : r.pTwoSided,
    pTwoSided: r.pTwoSided,
    groups: used.map((g) => ({ scores: g.scores, levels: g.levels, n: g.values.length })),
  };
}

export function trendTest(
  scored: readonly ScoredRow[],
  setup: GlmSetup,
  plan: ResolvedPlan,
): TrendResult | { error: string } | null {
  const trend = plan.trend;
  if (!trend) return null;
  const facet = setup.comparisonFacet;
  const rows = scored.filter((s) => trend.order.includes(s.row.facets[facet]));
  const covariates: string[] = [];
  const varies = (get: (s: ScoredRow) => string) => new Set(rows.map(get)).size > 1;
  if (varies((s) => s.row.model)) covariates.push("model");
  if (varies((s) => s.row.benchmark)) covariates.push("benchmark");
  for (const f of setup.covariateFacets) if (f !== facet && varies((s) => s.row.facets[f])) covariates.push(f);
  const result = attempt(() =>
    ordinalTrendTest(
      columnTable(
        rows,
        setup.covariateFacets.includes(facet) ? setup.covariateFacets : [facet, ...setup.covariateFacets],
      ),
      {
        response: "outcome",
        variable: facet,
        scores: trend.scores,
        covariates,
        cluster: "cluster",
        alternative: trend.alternative,
      },
    ),
  );
  if ("error" in result) return { error: result.error };
  const t = result.value;
  const rates = trend.order.map((level) => {
    const group = rows.filter((s) => s.row.facets[facet] === level);
    return { level, n: group.length, rate: group.length ? sumOf(group) / group.length : Number.NaN };
  });
  // The monotone direction: the one the alternative claims, or the slope's sign when two-sided.
  const increasing = trend.alternative === "greater" || (trend.alternative === "two-sided" && t.slope > 0);
  const usable = rates.filter((r) => r.n > 0);
  const fit = isotonicRegression(
    usable.map((r) => r.rate),
    { increasing, weights: usable.map((r) => r.n) },
  );
  return {
    order: trend.order,
    scores: trend.scores,
    alternative: trend.alternative,
    slope: t.slope,
    se: t.se,
    z: t.z,
    p: t.p,
    pTwoSided: t.pTwoSided,
    pAdjusted: null,
    oddsRatioPerStep: t.oddsRatio,
    oddsRatioCi95: t.oddsRatioCi95,
    rates: usable.map((r, i) => ({ ...r, isotonic: fit[i] })),
    isotonicDirection: increasing ? "increasing" : "decreasing",
    unscored: trend.unscored,
    aliased: t.fit.aliased,
    jonckheere: jonckheereOfTrend(rows, facet, trend),
  };
}
