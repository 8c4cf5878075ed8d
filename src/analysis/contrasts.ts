/**
 * Each condition against the reference (ScaffoldSafety 3.7, Table 4, App. Q.3.6): the adjusted
 * odds ratio from a logistic regression with model, benchmark and other-facet fixed effects and
 * case-cluster-robust standard errors (the effect significance is tested on), and the marginal
 * risk difference with a case-cluster bootstrap CI (the deployment-relevant effect, from which
 * RR and NNH follow). One bootstrap serves every condition, so all contrasts share their draws
 * (paired resampling). TOST judges equivalence from the bootstrap 90% interval.
 */
import type { AnalysisPlan } from "../contracts/analysis.js";
import type { Interval, WaldTest } from "../stats/index.js";
import {
  binomialRegression,
  cellProportion,
  clusterBootstrap,
  clusteredCellCounts,
  coefficientTable,
  type GlmFit,
  type Link,
  marginSensitivity,
  numberNeededToHarm,
  proportionCi,
  smallestEquivalentMargin,
  termWaldTest,
  tostFromBootstrap,
} from "../stats/index.js";
import { attempt, columnTable, distinctValues, type Population, type ScoredRow, sumOf } from "./data.js";

export interface ProportionEstimate {
  successes: number;
  n: number;
  rate: number;
  ci95: Interval;
}

export interface OddsRatioEstimate {
  estimate: number;
  ci95: Interval;
  z: number;
  p: number;
  /** Filled by the caller once the family is known. */
  pAdjusted: number | null;
  adjustment: string | null;
}

export interface Contrast {
  condition: string;
  rate: ProportionEstimate | null;
  referenceRate: ProportionEstimate;
  riskDifference: {
    estimate: number;
    ci95: Interval;
    /** The TOST interval: (1 - 2 alpha) percentile interval. */
    ci90: Interval;
    se: number;
    undefinedReplicates: number;
  } | null;
  riskRatio: { estimate: number | null; ci95: Interval | null } | null;
  /** 1/|RD|: harm when RD < 0 (fewer safe outcomes), benefit when RD > 0. */
  nnh: { value: number | null; ci95: Interval | null; direction: "harm" | "benefit" | "none" } | null;
  oddsRatio: OddsRatioEstimate | { error: string };
  equivalence: {
    margin: number;
    equivalent: boolean;
    sensitivity: { margin: number; equivalent: boolean }[];
    /** Equivalence holds for every margin above this. */
    smallestEquivalentMargin: number;
  } | null;
  /** Significance and equivalence read together (filled after multiplicity adjustment). */
  verdict: string;
  /** Set by the integrity gate: why no verdict can be read from this contrast's cells. */
  notInterpretable?: string;
}

export interface ContrastScope {
  scope: string;
  population: Population;
  nRows: number;
  nClusters: number;
  formula: string;
  contrasts: Contrast[];
  omnibus: WaldTest | { error: string } | null;
  bootstrap: { resamples: number; seed: number; level: number };
}

export interface GlmSetup {
  comparisonFacet: string;
  reference: string;
  /** Facet columns that may enter as fixed effects (those with >= 2 levels in the scope do). */
  covariateFacets: readonly string[];
  link?: Link;
  /** Adjust for model/benchmark/other facets (false: the comparison facet alone). */
  adjust?: boolean;
  extraTerms?: readonly string[];
}

/** The model formula for these rows: terms that have two or more levels only. */
export function glmFormula(scored: readonly ScoredRow[], setup: GlmSetup): { formula: string; facets: string[] } {
  const varies = (values: Iterable<string>) => new Set(values).size > 1;
  const terms = [setup.comparisonFacet];
  if (setup.adjust !== false) {
    if (varies(scored.map((s) => s.row.model))) terms.push("model");
    if (varies(scored.map((s) => s.row.benchmark))) terms.push("benchmark");
    for (const f of setup.covariateFacets) {
      if (f !== setup.comparisonFacet && varies(scored.map((s) => s.row.facets[f]))) terms.push(f);
    }
  }
  terms.push(...(setup.extraTerms ?? []));
  const facets = [setup.comparisonFacet, ...setup.covariateFacets.filter((f) => f !== setup.comparisonFacet)];
  return { formula: `outcome ~ ${terms.join(" + ")}`, facets };
}

/** Fits the (cluster-robust) logistic regression of a scope; the reference is the baseline level. */
export function fitScopeGlm(scored: readonly ScoredRow[], setup: GlmSetup): { fit: GlmFit; formula: string } {
  const { formula, facets } = glmFormula(scored, setup);
  const table = columnTable(scored, facets);
  const fit = binomialRegression(table, formula, {
    factors: { [setup.comparisonFacet]: { reference: setup.reference } },
    cluster: "cluster",
    link: setup.link ?? "logit",
  });
  return { fit, formula };
}

function proportionOf(scored: readonly ScoredRow[]): ProportionEstimate | null {
  const n = scored.length;
  if (n === 0) return null;
  const successes = sumOf(scored);
  return { successes, n, rate: successes / n, ci95: proportionCi(successes, n, 0.05, "wilson") };
}

/** Bootstrap of RD and RR of every level against the first (the reference), shared draws. */
function bootstrapContrasts(
  scored: readonly ScoredRow[],
  levels: readonly string[],
  facet: string,
  plan: AnalysisPlan,
) {
  const counts = clusteredCellCounts(
    {
      cluster: scored.map((s) => s.row.cluster),
      cell: scored.map((s) => s.row.facets[facet]),
      outcome: Float64Array.from(scored, (s) => s.y),
    },
    levels,
  );
  const others = levels.length - 1;
  return clusterBootstrap(
    counts,
    (totals) => {
      const out = new Float64Array(2 * others);
      const p0 = cellProportion(totals, 0);
      for (let c = 1; c <= others; c++) {
        const pc = cellProportion(totals, c);
        out[c - 1] = pc - p0;
        out[others + c - 1] = p0 > 0 ? pc / p0 : Number.NaN;
      }
      return out;
    },
    { resamples: plan.bootstrap.resamples, seed: plan.bootstrap.seed, level: plan.bootstrap.level },
  );
}

export function analyzeScope(
  scope: string,
  population: Population,
  scored: readonly ScoredRow[],
  levels: readonly string[],
  setup: GlmSetup,
  plan: AnalysisPlan,
): ContrastScope {
  const facet = setup.comparisonFacet;
  const present = distinctValues(
    scored.map((s) => s.row.facets[facet]),
    levels,
  ).filter((l) => levels.includes(l));
  const scopeLevels = levels.filter((l) => present.includes(l));
  const referenceRows = scored.filter((s) => s.row.facets[facet] === setup.reference);
  const referenceRate = proportionOf(referenceRows);
  const nClusters = new Set(scored.map((s) => s.row.cluster)).size;
  const base = {
    scope,
    population,
    nRows: scored.length,
    nClusters,
    bootstrap: { resamples: plan.bootstrap.resamples, seed: plan.bootstrap.seed, level: plan.bootstrap.level },
  };
  if (!referenceRate || scopeLevels.length < 2) {
    return { ...base, formula: "", contrasts: [], omnibus: { error: "the reference condition has no rows here" } };
  }
  const fitted = attempt(() => fitScopeGlm(scored, setup));
  const coefficients = "value" in fitted ? coefficientTable(fitted.value.fit, "cluster") : [];
  const boot = bootstrapContrasts(scored, scopeLevels, facet, plan);
  const others = scopeLevels.length - 1;
  const contrasts = scopeLevels.slice(1).map((condition, k): Contrast => {
    const rows = scored.filter((s) => s.row.facets[facet] === condition);
    const rdReplicates = boot.replicates[k];
    const rd = boot.estimate[k];
    const rdCi = boot.percentileCi[k];
    const tost = tostFromBootstrap(rdReplicates, plan.equivalence.margin, plan.equivalence.alpha);
    const sensitivity = marginSensitivity(plan.equivalence.sensitivity_margins, (m) =>
      tostFromBootstrap(rdReplicates, m, plan.equivalence.alpha),
    );
    const rr = boot.estimate[others + k];
    const nnh = numberNeededToHarm(rd, rdCi);
    const row = coefficients.find((c) => c.name === `${facet}[T.${condition}]`);
    const oddsRatio: Contrast["oddsRatio"] =
      "error" in fitted
        ? { error: fitted.error }
        : row
          ? {
              estimate: row.oddsRatio ?? Math.exp(row.estimate),
              ci95: [row.oddsRatioCiLower ?? Math.exp(row.ciLower), row.oddsRatioCiUpper ?? Math.exp(row.ciUpper)],
              z: row.z,
              p: row.p,
              pAdjusted: null,
              adjustment: null,
            }
          : { error: `no coefficient for ${facet}=${condition}` };
    return {
      condition,
      rate: proportionOf(rows),
      referenceRate,
      riskDifference: {
        estimate: rd,
        ci95: rdCi,
        ci90: tost.ciTost,
        se: boot.standardError[k],
        undefinedReplicates: boot.undefinedReplicates[k],
      },
      riskRatio: Number.isFinite(rr)
        ? { estimate: rr, ci95: boot.percentileCi[others + k] }
        : { estimate: null, ci95: null },
      nnh: { value: nnh.value, ci95: nnh.ci, direction: rd < 0 ? "harm" : rd > 0 ? "benefit" : "none" },
      oddsRatio,
      equivalence: {
        margin: plan.equivalence.margin,
        equivalent: tost.equivalent,
        sensitivity: sensitivity.map((s) => ({ margin: s.margin, equivalent: s.result.equivalent })),
        smallestEquivalentMargin: smallestEquivalentMargin(tost.ciTost),
      },
      verdict: "",
    };
  });
  const omnibus =
    "error" in fitted ? { error: fitted.error } : attempt(() => termWaldTest(fitted.value.fit, facet, "cluster"));
  return {
    ...base,
    formula: "value" in fitted ? fitted.value.formula : "",
    contrasts,
    omnibus: "value" in omnibus ? omnibus.value : omnibus,
  };
}

/** Significance (after adjustment) and TOST equivalence read together, as ScaffoldSafety 4.3 does. */
export function verdictOf(contrast: Contrast, alpha: number): string {
  const or = contrast.oddsRatio;
  const p = "error" in or ? null : (or.pAdjusted ?? or.p);
  const equivalent = contrast.equivalence?.equivalent ?? false;
  if (p === null) return equivalent ? "equivalent (no regression estimate)" : "no regression estimate";
  const significant = p < alpha;
  if (significant && equivalent) return "significant but equivalent (negligible)";
  if (significant) return "error" in or || or.estimate < 1 ? "degrades" : "improves";
  if (equivalent) return "equivalent";
  return "inconclusive";
}
