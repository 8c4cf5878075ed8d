/**
 * Variance decomposition and generalizability (ScaffoldSafety App. O): Type II ANOVA shares
 * (eta^2, omega^2) of every factor and two-way interaction on the 0/1 outcome, and a G-study
 * with the models as objects of measurement, whose coefficient (with a bootstrap over models)
 * says whether a composite score could rank models reliably across the facets.
 */
import type { AnalysisPlan } from "../contracts/analysis.js";
import type { VarianceComponent } from "../stats/index.js";
import { anova, generalizabilityStudy } from "../stats/index.js";
import { attempt, columnTable, type ScoredRow } from "./data.js";

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
}

export interface Generalizability {
  object: string;
  facets: string[];
  fixedFacets: string[];
  nObjects: number;
  components: VarianceComponent[];
  coefficient: number;
  dependability: number;
  ci95: [number, number] | null;
  resamples: number;
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
  const result = attempt(() => anova(columnTable(scored, facetColumns), { response: "outcome", terms }));
  if ("error" in result) return { error: result.error };
  const a = result.value;
  return {
    terms,
    rows: a.type2.map((r) => ({
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
  const g = attempt(() =>
    generalizabilityStudy(columnTable(scored, columns), {
      object,
      facets,
      fixedFacets,
      value: "outcome",
      bootstrap: { resamples: plan.bootstrap.resamples, seed: plan.bootstrap.seed, level: plan.bootstrap.level },
    }),
  );
  if ("error" in g) return { error: g.error };
  return {
    object,
    facets,
    fixedFacets,
    nObjects: g.value.nObjects,
    components: g.value.components,
    coefficient: g.value.observed.generalizability,
    dependability: g.value.observed.dependability,
    ci95: g.value.bootstrap?.ci ?? null,
    resamples: plan.bootstrap.resamples,
  };
}
