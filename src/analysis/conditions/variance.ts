/**
 * Variance decomposition and generalizability (ScaffoldSafety App. O): Type II ANOVA shares
 * (eta^2, omega^2) of every factor and two-way interaction on the 0/1 outcome (columns of level
 * combinations the data lacks dropped, as R's lm does), and a G-study
 * with the models as objects of measurement, whose coefficient (with a bootstrap over models)
 * says whether a composite score could rank models reliably across the facets. The facets are
 * fixed or random as the plan declares (default fixed, as App. O.1 states); the coefficient with
 * every facet random and the D-study projection (default the paper's 8 x 12) are reported too.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { DStudy, VarianceComponent } from "../../stats/index.js";
import { anova, dStudy, generalizabilityStudy, RankDeficiencyError } from "../../stats/index.js";
import { attempt, columnTable, type ScoredRow } from "../core/data.js";

export interface VarianceRow {
  term: string;
  df: number;
  ss: number;
  F: number;
  p: number;
  etaSq: number;
  omegaSq: number;
}

export interface VarianceDecomposition {
  terms: string[];
  rows: VarianceRow[];
  residual: { df: number; ss: number; share: number };
  nObs: number;
  /**
   * Interaction columns of level combinations the grid never runs (a constraint excludes them, or
   * a benchmark admits one scoring path), left out as R's lm does: each term's df is the rank it
   * adds. Absent in records written before aliased columns were dropped.
   */
  aliased?: string[];
}

export interface Generalizability {
  object: string;
  /** The G-study facets, each fixed or random as the plan declares. */
  facets: string[];
  facetTypes: Record<string, "fixed" | "random">;
  /** Other varying columns averaged over before the G-study. */
  fixedFacets: string[];
  nObjects: number;
  facetSizes: number[];
  /** G-study variance components (random-effects EMS on the cell means), raw and truncated. */
  components: VarianceComponent[];
  /** E rho^2 and Phi at the observed sizes with the declared facet types. */
  coefficient: number;
  dependability: number;
  universeScoreVariance: number;
  relativeErrorVariance: number;
  /** Bootstrap over objects of the declared coefficient. */
  ci95: [number, number] | null;
  resamples: number;
  /** The same at the observed sizes with every facet random (what sampling facets would generalize to). */
  allRandom: { coefficient: number; dependability: number; ci95: [number, number] | null };
  /** D-study projections at the plan's sizes: with the declared types, and with every facet random. */
  dStudy: { sizes: number[]; declared: DStudy; allRandom: DStudy };
  notes: string[];
}

function columnOf(name: string): (s: ScoredRow) => string {
  if (name === "model") return (s) => s.row.model;
  if (name === "benchmark") return (s) => s.row.benchmark;
  return (s) => s.row.facets[name];
}

function varying(scored: readonly ScoredRow[], names: readonly string[]): string[] {
  return names.filter((n) => new Set(scored.map(columnOf(n))).size > 1);
}

export function varianceDecomposition(
  scored: readonly ScoredRow[],
  comparisonFacet: string,
  otherFacets: readonly string[],
): VarianceDecomposition | { error: string } {
  const factors = varying(scored, [
    comparisonFacet,
    "model",
    "benchmark",
    ...otherFacets.filter((f) => f !== comparisonFacet),
  ]);
  if (factors.length === 0) return { error: "no factor varies" };
  const terms = [...factors];
  for (let i = 0; i < factors.length; i++) {
    for (let j = i + 1; j < factors.length; j++) terms.push(`${factors[i]}:${factors[j]}`);
  }
  const facetColumns = factors.filter((f) => f !== "model" && f !== "benchmark");
  const table = columnTable(scored, facetColumns);
  // The full-rank fit where the design has one; aliased columns are dropped only when present.
  const result = attempt(() => {
    try {
      return anova(table, { response: "outcome", terms });
    } catch (error) {
      if (error instanceof RankDeficiencyError) return anova(table, { response: "outcome", terms, aliased: "drop" });
      throw error;
    }
  });
  if ("error" in result) return { error: result.error };
  const a = result.value;
  return {
    terms,
    // A term whose every column is aliased adds nothing to test (df 0): named in `aliased` only.
    rows: a.type2
      .filter((r) => r.df > 0)
      .map((r) => ({
        term: r.term,
        df: r.df,
        ss: r.ss,
        F: r.F,
        p: r.p,
        etaSq: r.etaSq ?? Number.NaN,
        omegaSq: r.omegaSq ?? Number.NaN,
      })),
    residual: { df: a.dfResidual, ss: a.rss, share: a.rss / a.ssTotal },
    nObs: a.nObs,
    ...(a.aliased.length ? { aliased: a.aliased.map((c) => c.column) } : {}),
  };
}

export function generalizability(
  scored: readonly ScoredRow[],
  comparisonFacet: string,
  otherFacets: readonly string[],
  plan: AnalysisPlan,
): Generalizability | { error: string } {
  const object = plan.generalizability.object;
  const wanted = plan.generalizability.facets ?? [comparisonFacet, "benchmark"];
  const facets = varying(scored, wanted);
  if (new Set(scored.map(columnOf(object))).size < 2) return { error: `needs two or more levels of '${object}'` };
  if (facets.length === 0) return { error: `no random facet varies (${wanted.join(", ")})` };
  const fixedFacets = varying(
    scored,
    ["model", "benchmark", comparisonFacet, ...otherFacets].filter((f) => f !== object && !facets.includes(f)),
  );
  const columns = [...new Set([object, ...facets, ...fixedFacets])].filter((c) => c !== "model" && c !== "benchmark");
  const declaredFixed = (plan.generalizability.fixed ?? wanted).filter((f) => facets.includes(f));
  // D-study sizes follow the declared facets' order; a facet that does not vary keeps its place.
  const sizes = facets.map((f) => plan.generalizability.d_study[wanted.indexOf(f)]);
  if (sizes.some((n) => n === undefined))
    return { error: `generalizability.d_study has no size for every facet (${wanted.join(", ")})` };
  const table = columnTable(scored, columns);
  const bootstrap = { resamples: plan.bootstrap.resamples, seed: plan.bootstrap.seed, level: plan.bootstrap.level };
  const base = { object, facets, fixedFacets, value: "outcome", bootstrap };
  // Bootstraps at the observed sizes; the D-study projections from the observed components.
  const declared = attempt(() => generalizabilityStudy(table, { ...base, fixedInUniverse: declaredFixed }));
  if ("error" in declared) return { error: declared.error };
  const random = attempt(() => generalizabilityStudy(table, base));
  if ("error" in random) return { error: random.error };
  const g = declared.value;
  const notes: string[] = [];
  if (declaredFixed.length === facets.length)
    notes.push(
      "every G-study facet is fixed: no facet is sampled, so the relative error is 0 and E rho^2 = 1 by construction; the all-random coefficient and D-study say how far a composite would generalize to other configurations and benchmarks",
    );
  return {
    object,
    facets,
    facetTypes: Object.fromEntries(facets.map((f) => [f, declaredFixed.includes(f) ? "fixed" : "random"])),
    fixedFacets,
    nObjects: g.nObjects,
    facetSizes: g.facetSizes,
    components: g.components,
    coefficient: g.observed.generalizability,
    dependability: g.observed.dependability,
    universeScoreVariance: g.observed.universeScoreVariance,
    relativeErrorVariance: g.observed.relativeErrorVariance,
    ci95: g.bootstrap?.ci ?? null,
    resamples: plan.bootstrap.resamples,
    allRandom: {
      coefficient: random.value.observed.generalizability,
      dependability: random.value.observed.dependability,
      ci95: random.value.bootstrap?.ci ?? null,
    },
    dStudy: {
      sizes: [...sizes],
      declared: dStudy(g.components, sizes, declaredFixed),
      allRandom: dStudy(g.components, sizes),
    },
    notes,
  };
}
