/**
 * analyzeStudy: every analysis of the plan on one table, as one typed, JSON-serialisable
 * result. Pure (no I/O): the study-directory wrapper adds the methodology stamp and deviations.
 */
import type { AnalysisPlan } from "../contracts/analysis.js";
import { PARALLAX_VERSION } from "../core/version.js";
import type { WaldTest } from "../stats/index.js";
import { adjustPValues } from "../stats/index.js";
import { analyzeScope, type ContrastScope, type GlmSetup, verdictOf } from "./contrasts.js";
import { distinctValues, type Population, scoredRows, varyingFacets } from "./data.js";
import {
  type FormatAnalysis,
  formatAnalysis,
  type OptionPreservingAnalysis,
  optionPreservingAnalysis,
} from "./format.js";
import { type InteractionResult, interactionTests, type TrendResult, trendTest } from "./hypotheses.js";
import { type DifficultyResult, difficultyAnalysis, type FlipResult, flipAnalysis } from "./paired.js";
import { findLevel, type ResolvedPlan, resolvePlan, restrictRows } from "./plan.js";
import { type RateCell, rateCells } from "./rates.js";
import { type SpecCurveResult, specificationCurve } from "./spec-curve.js";
import type { AnalysisTable, TableSource } from "./table.js";
import {
  type Generalizability,
  generalizability,
  type VarianceDecomposition,
  varianceDecomposition,
} from "./variance.js";

export type Skipped = { skipped: string };

export interface StudyAnalysis {
  meta: {
    parallaxVersion: string;
    analyzedAt: string;
    source: TableSource;
    simulated: boolean;
    plan: AnalysisPlan;
    comparisonFacet: string;
    reference: string;
    levels: string[];
    restrict: Record<string, string>;
    /** Facets that vary in the analysed rows; a configuration is one combination of their values. */
    configurationFacets: string[];
    primaryPopulation: Population;
    notes: string[];
  };
  counts: {
    rows: number;
    analysed: number;
    errored: number;
    parseFailures: number;
    unscored: number;
    pending: number;
    clusters: number;
    models: string[];
    benchmarks: string[];
  };
  rates: RateCell[];
  contrasts: Record<Population, { pooled: ContrastScope; byBenchmark: ContrastScope[] }>;
  hypotheses: {
    omnibus: WaldTest | { error: string } | null;
    interactions: InteractionResult[];
    trend: TrendResult | { error: string } | null;
    secondaryAdjustment: string;
  };
  format: FormatAnalysis | Skipped;
  optionPreserving: OptionPreservingAnalysis | Skipped;
  paired: { flips: FlipResult[]; difficulty: DifficultyResult[] };
  variance: {
    decomposition: VarianceDecomposition | { error: string };
    generalizability: Generalizability | { error: string };
  };
  specificationCurve: SpecCurveResult | Skipped;
}

export interface AnalyzeOptions {
  /** Clock for the result's timestamp (tests pin it). */
  now?: () => Date;
}

export async function analyzeStudy(
  table: AnalysisTable,
  plan: AnalysisPlan,
  options: AnalyzeOptions = {},
): Promise<StudyAnalysis> {
  const resolved = resolvePlan(plan, table);
  const { comparisonFacet: facet, reference, levels } = resolved;
  const rows = restrictRows(table.rows, resolved.restrict).filter((r) => levels.includes(r.facets[facet]));
  const otherFacets = table.facets.filter((f) => f !== facet);
  const setup: GlmSetup = { comparisonFacet: facet, reference, covariateFacets: otherFacets };
  const primary = plan.population;
  const scored = { itt: scoredRows(rows, "itt"), pp: scoredRows(rows, "pp") };
  const benchmarks = distinctValues(rows.map((r) => r.benchmark));
  const contrasts = {
    itt: contrastsFor("itt", scored.itt, benchmarks, levels, setup, plan),
    pp: contrastsFor("pp", scored.pp, benchmarks, levels, setup, plan),
  };
  const main = scored[primary];
  const hypotheses = secondaryHypotheses(main, setup, resolved, contrasts[primary].pooled);
  const configurationFacets = varyingFacets(rows, table.facets);
  const hasFormat = formatFacetPresent(table, rows, plan, resolved);
  const formatRows = scoredRows(
    restrictRows(
      table.rows,
      Object.fromEntries(Object.entries(resolved.restrict).filter(([f]) => f !== plan.format.facet)),
    ).filter((r) => levels.includes(r.facets[facet])),
    primary,
  );
  // Variant names may be short names of parameterised levels ("react" for "react(max_iterations=5)").
  const op = {
    standard: findLevel(plan.option_preserving.standard, levels) ?? plan.option_preserving.standard,
    preserving: findLevel(plan.option_preserving.preserving, levels) ?? plan.option_preserving.preserving,
  };
  return {
    meta: {
      parallaxVersion: PARALLAX_VERSION,
      analyzedAt: (options.now?.() ?? new Date()).toISOString(),
      source: table.source,
      simulated: table.source.simulated,
      plan,
      comparisonFacet: facet,
      reference,
      levels,
      restrict: resolved.restrict,
      configurationFacets,
      primaryPopulation: primary,
      notes: resolved.notes,
    },
    counts: countsOf(table, rows, benchmarks),
    rates: rateCells(rows, configurationFacets, facet, { ...table.facetLevels, [facet]: levels }),
    contrasts,
    hypotheses,
    format: hasFormat
      ? formatAnalysis(formatRows, facet, reference, levels, plan)
      : { skipped: `no '${plan.format.facet}' facet with both ${plan.format.mc} and ${plan.format.oe}` },
    optionPreserving:
      levels.includes(op.standard) && levels.includes(op.preserving)
        ? optionPreservingAnalysis(formatRows, facet, reference, { ...plan, option_preserving: op }, hasFormat)
        : { skipped: `needs both ${facet}=${op.standard} and ${facet}=${op.preserving}` },
    paired: {
      flips: flipAnalysis(main, facet, table.facets, reference, levels),
      difficulty: difficultyAnalysis(main, facet, reference, levels),
    },
    variance: {
      decomposition: varianceDecomposition(main, facet, otherFacets),
      generalizability: generalizability(main, facet, otherFacets, plan),
    },
    specificationCurve: await curveFor(rows, resolved, contrasts[primary].pooled, table.facets),
  };
}

function formatFacetPresent(
  table: AnalysisTable,
  rows: readonly { facets: Record<string, string> }[],
  plan: AnalysisPlan,
  resolved: ResolvedPlan,
): boolean {
  const { facet, mc, oe } = plan.format;
  if (!table.facets.includes(facet) || facet === resolved.comparisonFacet) return false;
  const all = restrictRows(
    table.rows,
    Object.fromEntries(Object.entries(resolved.restrict).filter(([f]) => f !== facet)),
  );
  const values = new Set((all.length ? all : rows).map((r) => r.facets[facet]));
  return values.has(mc) && values.has(oe);
}

function contrastsFor(
  population: Population,
  scored: ReturnType<typeof scoredRows>,
  benchmarks: string[],
  levels: string[],
  setup: GlmSetup,
  plan: AnalysisPlan,
): { pooled: ContrastScope; byBenchmark: ContrastScope[] } {
  const pooled = analyzeScope("pooled", population, scored, levels, setup, plan);
  adjustFamily([pooled], plan.multiplicity.primary, plan.multiplicity.alpha);
  const byBenchmark =
    benchmarks.length > 1
      ? benchmarks.map((b) =>
          analyzeScope(
            b,
            population,
            scored.filter((s) => s.row.benchmark === b),
            levels,
            setup,
            plan,
          ),
        )
      : [];
  adjustFamily(byBenchmark, plan.multiplicity.secondary, plan.multiplicity.alpha);
  return { pooled, byBenchmark };
}

/** Adjusts the odds-ratio p-values of every contrast in these scopes as one family, then sets verdicts. */
function adjustFamily(scopes: ContrastScope[], method: AnalysisPlan["multiplicity"]["primary"], alpha: number): void {
  const members = scopes
    .flatMap((s) => s.contrasts)
    .filter((c) => !("error" in c.oddsRatio) && Number.isFinite(c.oddsRatio.p));
  if (members.length > 0) {
    const adjusted = adjustPValues(
      members.map((c) => (c.oddsRatio as { p: number }).p),
      method,
      alpha,
    );
    members.forEach((c, i) => {
      const or = c.oddsRatio as { pAdjusted: number | null; adjustment: string | null };
      or.pAdjusted = adjusted.adjusted[i];
      or.adjustment = `${method} over ${members.length} test(s)`;
    });
  }
  for (const c of scopes.flatMap((s) => s.contrasts)) c.verdict = verdictOf(c, alpha);
}

function secondaryHypotheses(
  scored: ReturnType<typeof scoredRows>,
  setup: GlmSetup,
  resolved: ResolvedPlan,
  pooled: ContrastScope,
): StudyAnalysis["hypotheses"] {
  const plan = resolved.plan;
  const interactions = interactionTests(scored, setup, resolved);
  const trend = trendTest(scored, setup, resolved);
  // The secondary family (H2, H3, H4): interaction blocks and the trend, adjusted together.
  const family: { p: number; set: (p: number) => void }[] = [];
  for (const i of interactions) if (i.test) family.push({ p: i.test.p, set: (p) => (i.test!.pAdjusted = p) });
  if (trend && !("error" in trend)) family.push({ p: trend.p, set: (p) => (trend.pAdjusted = p) });
  const usable = family.filter((f) => Number.isFinite(f.p));
  if (usable.length > 0) {
    const adjusted = adjustPValues(
      usable.map((f) => f.p),
      plan.multiplicity.secondary,
      plan.multiplicity.alpha,
    );
    usable.forEach((f, i) => {
      f.set(adjusted.adjusted[i]);
    });
  }
  return {
    omnibus: plan.hypotheses.omnibus ? pooled.omnibus : null,
    interactions,
    trend,
    secondaryAdjustment: `${plan.multiplicity.secondary} over ${usable.length} test(s)`,
  };
}

async function curveFor(
  rows: AnalysisTable["rows"],
  resolved: ResolvedPlan,
  pooled: ContrastScope,
  facets: readonly string[],
): Promise<SpecCurveResult | Skipped> {
  const curvePlan = resolved.plan.specification_curve;
  if (curvePlan === false) return { skipped: "not in the plan" };
  const contrast =
    curvePlan.contrast ??
    [...pooled.contrasts].sort(
      (a, b) => Math.abs(b.riskDifference?.estimate ?? 0) - Math.abs(a.riskDifference?.estimate ?? 0),
    )[0]?.condition;
  if (!contrast) return { skipped: "no contrast to follow" };
  if (!resolved.levels.includes(contrast)) return { skipped: `contrast '${contrast}' is not a level in the data` };
  const curve = await specificationCurve(
    rows,
    resolved.comparisonFacet,
    resolved.reference,
    contrast,
    facets,
    resolved.plan,
  );
  return curve ?? { skipped: "not in the plan" };
}

function countsOf(table: AnalysisTable, rows: AnalysisTable["rows"], benchmarks: string[]): StudyAnalysis["counts"] {
  let errored = 0;
  let parseFailures = 0;
  let unscored = 0;
  for (const r of rows) {
    if (r.errored) errored++;
    else if (r.outcome === null) unscored++;
    else if (r.parseFailed) parseFailures++;
  }
  return {
    rows: table.rows.length,
    analysed: rows.length,
    errored,
    parseFailures,
    unscored,
    pending: table.source.pending,
    clusters: new Set(rows.map((r) => r.cluster)).size,
    models: distinctValues(rows.map((r) => r.model)),
    benchmarks,
  };
}
