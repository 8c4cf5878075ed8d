/**
 * Each condition against the reference (ScaffoldSafety 3.7, Table 4, App. Q.3.6): the adjusted
 * odds ratio from a logistic regression with model, benchmark and other-facet fixed effects and
 * case-cluster-robust standard errors (the effect significance is tested on), and the marginal
 * risk difference with a case-cluster bootstrap CI (the deployment-relevant effect, from which
 * RR and NNH follow). One bootstrap serves every condition, so all contrasts share their draws
 * (paired resampling). TOST judges equivalence from the bootstrap 90% interval.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { isReplicateColumn } from "../../facets/registry.js";
import type { AltmanInterval, Interval, WaldTest } from "../../stats/index.js";
import {
  adjustPValues,
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
} from "../../stats/index.js";
import { casesByLevel, intersect, NOT_COMPARABLE, onCases, type Pairing } from "./pairing.js";
import type { AnalysisRow } from "./table.js";
import { attempt, columnTable, type Population, type ScoredRow, sumOf } from "./data.js";

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
  /**
   * 1/|RD|: harm (NNH) when RD < 0 (fewer safe outcomes), benefit (NNT) when RD > 0; `interval`
   * is Altman's (the disjoint set through infinity when the RD CI includes 0), `ci95` the bounded
   * interval only (null when the RD CI reaches 0).
   */
  nnh: NumberNeededEstimate | null;
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
  /** How the two sides were matched (absent in older records: every case of each side). */
  pairing?: Pairing;
  /** Set when the two sides share no case: no difference, interval or test is computed. */
  notComparable?: string;
  /**
   * Set by the integrity gate when the contrast rests on fewer cases than the plan's minimum
   * ("1 case"), or for every contrast of a sequential run (fixed-n inference ignores the looks):
   * its intervals and number needed are kept in the record but never shown as a finding.
   */
  withheld?: string;
}

/** The RD interval to show: none when withheld for too few cases. */
export function shownRdInterval(c: Contrast): Interval | null {
  return c.withheld ? null : (c.riskDifference?.ci95 ?? null);
}

/** The number needed to show: none when withheld for too few cases. */
export function shownNumberNeeded(c: Contrast): NumberNeededEstimate | null {
  return c.withheld ? null : c.nnh;
}

export interface NumberNeededEstimate {
  value: number | null;
  ci95: Interval | null;
  direction: "harm" | "benefit" | "none";
  /** Absent in records written before the Altman interval existed. */
  interval?: AltmanInterval;
}

export interface ContrastScope {
  /** "pooled", the benchmark or the model the scope is restricted to. */
  scope: string;
  /** What `scope` names (absent in older records: pooled or a benchmark). */
  kind?: "pooled" | "benchmark" | "model";
  /** The format the scope's rows are restricted to, when format is a facet. */
  format?: string;
  /** All formats together (format a facet): the omnibus test's scope, never presented as RDs or NNHs. */
  acrossFormats?: boolean;
  population: Population;
  nRows: number;
  nClusters: number;
  formula: string;
  contrasts: Contrast[];
  omnibus: WaldTest | { error: string } | null;
  /** Set by the integrity gate: why the omnibus test cannot be read here (too few clusters). */
  omnibusNotInterpretable?: string;
  bootstrap: { resamples: number; seed: number; level: number };
}

export interface GlmSetup {
  comparisonFacet: string;
  reference: string;
  /** Facet columns that may enter as fixed effects (those with >= 2 levels in the scope do; `termFacets`). */
  covariateFacets: readonly string[];
  link?: Link;
  /** Adjust for model/benchmark/other facets (false: the comparison facet alone). */
  adjust?: boolean;
  extraTerms?: readonly string[];
  /**
   * The cases (model, item) each level of the compared facet was run on, over every analysed row
   * whatever its population: which cases a contrast pairs. Absent: read from the scope's rows.
   */
  designCases?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The condition columns that may enter a model as terms beside the compared facet: every one but
 * the replicate columns (a sampled decoding setting's seeds), which are nested in their facet's
 * value rather than crossed with the other facets, so a term for them would alias that facet.
 * Their rows are pooled within the value, clustered by case as every row is.
 */
export function termFacets(facets: readonly string[], comparisonFacet: string): string[] {
  return facets.filter((f) => f !== comparisonFacet && !isReplicateColumn(f));
}

/** The model formula for these rows: terms that have two or more levels only. */
export function glmFormula(scored: readonly ScoredRow[], setup: GlmSetup): { formula: string; facets: string[] } {
  // Whether a column shows two values: read until the first row that differs from the first.
  const varies = (value: (row: AnalysisRow) => string) => {
    if (scored.length === 0) return false;
    const first = value(scored[0].row);
    for (const s of scored) if (value(s.row) !== first) return true;
    return false;
  };
  const terms = [setup.comparisonFacet];
  if (setup.adjust !== false) {
    if (varies((r) => r.model)) terms.push("model");
    if (varies((r) => r.benchmark)) terms.push("benchmark");
    for (const f of setup.covariateFacets) {
      if (f === setup.comparisonFacet || !varies((r) => r.facets[f])) continue;
      // A facet with one level per benchmark (a format fixed by the benchmark) is the benchmark
      // term again: its columns would be aliased.
      if (terms.includes("benchmark") && facetFixedByBenchmark(scored, f, (s) => s.row)) continue;
      terms.push(f);
    }
  }
  terms.push(...(setup.extraTerms ?? []));
  const facets = [setup.comparisonFacet, ...setup.covariateFacets.filter((f) => f !== setup.comparisonFacet)];
  return { formula: `outcome ~ ${terms.join(" + ")}`, facets };
}

/** Whether each benchmark shows one level of the facet (a format the benchmark fixes: XSTest is open-ended). */
export function facetFixedByBenchmark<T = AnalysisRow>(
  rows: readonly T[],
  facet: string,
  rowOf: (item: T) => AnalysisRow = (item) => item as AnalysisRow,
): boolean {
  const level = new Map<string, string>();
  for (const item of rows) {
    const row = rowOf(item);
    const seen = level.get(row.benchmark);
    if (seen === undefined) level.set(row.benchmark, row.facets[facet]);
    else if (seen !== row.facets[facet]) return false;
  }
  return true;
}

/** One group of scopes: every format (format not a facet) or one format. */
export interface ContrastGroup {
  /** The format of these rows; null when format is not a facet of the analysed rows. */
  format: string | null;
  pooled: ContrastScope;
  byBenchmark: ContrastScope[];
  /** Per model: the headline NNH per model of App. I. */
  byModel: ContrastScope[];
}

export interface PopulationContrasts {
  /** Every analysed row: the omnibus test's scope (a varying format enters as a fixed effect). */
  pooled: ContrastScope;
  byBenchmark: ContrastScope[];
  /** Absent in records written before per-model scopes existed. */
  byModel?: ContrastScope[];
  /**
   * Set when format is a facet with two or more formats in the rows: the scopes within each
   * format. RDs, NNHs and TOST are then presented only from these, never pooled across MC and OE
   * (ScaffoldSafety keeps the formats apart); `byBenchmark` and `byModel` are then empty, and
   * `pooled` serves the omnibus test.
   */
  byFormat?: ContrastGroup[];
}

/** The groups of scopes to present: one per format when format is a facet, else one. */
export function contrastGroups(pc: PopulationContrasts): ContrastGroup[] {
  return pc.byFormat?.length
    ? pc.byFormat
    : [{ format: null, pooled: pc.pooled, byBenchmark: pc.byBenchmark, byModel: pc.byModel ?? [] }];
}

/** Every scope with the benchmark it is restricted to (null: all), for the integrity gate. */
export function allContrastScopes(pc: PopulationContrasts): { scope: ContrastScope; benchmark: string | null }[] {
  const groups = [
    { format: null, pooled: pc.pooled, byBenchmark: pc.byBenchmark, byModel: pc.byModel ?? [] },
    ...(pc.byFormat ?? []),
  ];
  return groups.flatMap((g) => [
    { scope: g.pooled, benchmark: null },
    ...g.byBenchmark.map((scope) => ({ scope, benchmark: scope.scope })),
    ...g.byModel.map((scope) => ({ scope, benchmark: null })),
  ]);
}

/** A scope's label: "pooled", "benchmark bbq", "model m1", with its format when stratified. */
export function scopeLabel(scope: ContrastScope): string {
  const base = scope.kind === "model" ? `model ${scope.scope}` : scope.scope;
  return scope.format ? `${base} · ${scope.format}` : base;
}

/**
 * Each rows array's scope fits by their setup: the same rows fitted with the same setup (the
 * primary population's pooled contrasts, then its pairwise family) are fitted once.
 */
const scopeFits = new WeakMap<readonly ScoredRow[], Map<string, { fit: GlmFit; formula: string; rows: number }>>();

/**
 * Fits the (cluster-robust) logistic regression of a scope; the reference is the baseline level.
 * The fit keeps what its readers use (coefficients, covariances, the design's columns and terms),
 * not its per-row arrays (the design's rows, the fitted values), so a repeated fit can be shared.
 */
export function fitScopeGlm(scored: readonly ScoredRow[], setup: GlmSetup): { fit: GlmFit; formula: string } {
  const key = JSON.stringify([
    setup.comparisonFacet,
    setup.reference,
    setup.covariateFacets,
    setup.link ?? "logit",
    setup.adjust !== false,
    setup.extraTerms ?? [],
  ]);
  let fits = scopeFits.get(scored);
  const known = fits?.get(key);
  if (known && known.rows === scored.length) return { fit: known.fit, formula: known.formula };
  const { formula, facets } = glmFormula(scored, setup);
  const table = columnTable(scored, facets);
  const full = binomialRegression(table, formula, {
    factors: { [setup.comparisonFacet]: { reference: setup.reference } },
    cluster: "cluster",
    link: setup.link ?? "logit",
  });
  const { design } = full;
  const fit: GlmFit = {
    ...full,
    design: { ...design, rowPtr: new Int32Array(0), colIdx: new Int32Array(0), values: new Float64Array(0) },
    fitted: new Float64Array(0),
  };
  if (!fits) {
    fits = new Map();
    scopeFits.set(scored, fits);
  }
  fits.set(key, { fit, formula, rows: scored.length });
  return { fit, formula };
}

function proportionOf(scored: readonly ScoredRow[]): ProportionEstimate | null {
  return proportionFrom({ successes: sumOf(scored), n: scored.length });
}

function proportionFrom(tally: LevelTally | undefined): ProportionEstimate | null {
  if (!tally || tally.n === 0) return null;
  const { successes, n } = tally;
  return { successes, n, rate: successes / n, ci95: proportionCi(successes, n, 0.05, "wilson") };
}

/** Rows and successes of one level of the compared facet. */
interface LevelTally {
  successes: number;
  n: number;
}

/**
 * Every level's rows and successes in one pass (in row order, so each level's sum is the one a
 * filter of its rows would give), rather than one filter of the scope's rows per level.
 */
export function levelTallies(scored: readonly ScoredRow[], facet: string): Map<string, LevelTally> {
  const tallies = new Map<string, LevelTally>();
  for (const s of scored) {
    const level = s.row.facets[facet];
    let tally = tallies.get(level);
    if (tally === undefined) {
      tally = { successes: 0, n: 0 };
      tallies.set(level, tally);
    }
    tally.successes += s.y;
    tally.n++;
  }
  return tallies;
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

/** What every scope of one population's contrasts is fitted with. */
export interface ScopeModel {
  population: Population;
  /** The compared levels, reference first. */
  levels: readonly string[];
  setup: GlmSetup;
  plan: AnalysisPlan;
}

export function analyzeScope(scope: string, scored: readonly ScoredRow[], model: ScopeModel): ContrastScope {
  const { population, levels, setup, plan } = model;
  const facet = setup.comparisonFacet;
  const tallies = levelTallies(scored, facet);
  const scopeLevels = levels.filter((l) => tallies.has(l));
  const referenceRate = proportionFrom(tallies.get(setup.reference));
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
  // Shared cases are those both sides were run on (the design), so a population that drops a
  // row (PP, a parse failure) does not unpair a case; the scope's rows say which are here.
  const empty = new Set<string>();
  const design = setup.designCases ?? casesByLevel(scored, facet);
  const here = casesByLevel(scored, facet);
  const referenceCases = here.get(setup.reference) ?? empty;
  const pairings = scopeLevels.slice(1).map((condition) => {
    const shared = intersect(design.get(setup.reference) ?? empty, design.get(condition) ?? empty);
    const own = here.get(condition) ?? empty;
    const inScope = new Set([...referenceCases, ...own].filter((k) => shared.has(k)));
    const complete = inScope.size === new Set([...referenceCases, ...own]).size;
    const pairing: Pairing = {
      mode: "paired",
      shared: inScope.size,
      referenceCases: referenceCases.size,
      conditionCases: own.size,
    };
    return { condition, shared: inScope, pairing, complete };
  });
  const crossed = pairings.every((p) => p.complete);
  if (crossed || plan.comparability === "unpaired") {
    // Every condition on the reference's cases (or different item sets compared as asked): one
    // model and one bootstrap for all, so the contrasts share their draws.
    const joint = jointContrasts(scored, scopeLevels, setup, plan, tallies);
    joint.contrasts.forEach((c, k) => {
      c.pairing = { ...pairings[k].pairing, mode: crossed ? "paired" : "unpaired" };
    });
    return { ...base, ...joint };
  }
  // Paired on different case sets: each contrast on the cases it shares with the reference,
  // the omnibus test on the cases every condition shares.
  const contrasts = pairings.map(({ condition, shared, pairing }): Contrast => {
    const own = scored.filter((s) => s.row.facets[facet] === condition);
    const ownShared = onCases(own, shared);
    const referenceShared = onCases(
      scored.filter((s) => s.row.facets[facet] === setup.reference),
      shared,
    );
    if (ownShared.length === 0 || referenceShared.length === 0)
      return notComparable(condition, own, referenceRate, pairing);
    const rows = [...referenceShared, ...ownShared];
    return { ...jointContrasts(rows, [setup.reference, condition], setup, plan).contrasts[0], pairing };
  });
  let common: Set<string> = new Set(referenceCases);
  for (const p of pairings) common = intersect(common, p.shared);
  const everyLevel = common.size > 0 ? jointContrasts(onCases(scored, common), scopeLevels, setup, plan) : null;
  return {
    ...base,
    formula: everyLevel?.formula ?? "",
    contrasts,
    omnibus: everyLevel?.omnibus ?? { error: "no case is shared by every condition" },
  };
}

/** A contrast between two sides that share no case: rates only, no difference, no test. */
function notComparable(
  condition: string,
  rows: readonly ScoredRow[],
  referenceRate: ProportionEstimate,
  pairing: Pairing,
): Contrast {
  return {
    condition,
    rate: proportionOf(rows),
    referenceRate,
    riskDifference: null,
    riskRatio: null,
    nnh: null,
    oddsRatio: { error: NOT_COMPARABLE },
    equivalence: null,
    verdict: NOT_COMPARABLE,
    notComparable: NOT_COMPARABLE,
    pairing,
  };
}

/** Every level against the first on these rows: one model, one bootstrap with shared draws. */
function jointContrasts(
  scored: readonly ScoredRow[],
  scopeLevels: readonly string[],
  setup: GlmSetup,
  plan: AnalysisPlan,
  /** The rows' level tallies when the caller has them (the scope's own rows). */
  known?: ReadonlyMap<string, LevelTally>,
): Pick<ContrastScope, "formula" | "contrasts" | "omnibus"> {
  const facet = setup.comparisonFacet;
  const tallies = known ?? levelTallies(scored, facet);
  const referenceRate = proportionFrom(tallies.get(setup.reference))!;
  const fitted = attempt(() => fitScopeGlm(scored, setup));
  const coefficients = "value" in fitted ? coefficientTable(fitted.value.fit, "cluster") : [];
  const boot = bootstrapContrasts(scored, scopeLevels, facet, plan);
  const others = scopeLevels.length - 1;
  const contrasts = scopeLevels.slice(1).map((condition, k): Contrast => {
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
      rate: proportionFrom(tallies.get(condition)),
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
      nnh: { value: nnh.value, ci95: nnh.ci, direction: nnh.direction, interval: nnh.interval },
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
    formula: "value" in fitted ? fitted.value.formula : "",
    contrasts,
    omnibus: "value" in omnibus ? omnibus.value : omnibus,
  };
}

/**
 * Adjusts the odds-ratio p values of these contrasts as one family (those with a finite p) and
 * names the adjustment ("holm over 3 test(s)" and `note`).
 */
export function adjustContrastPValues(
  contrasts: readonly Contrast[],
  method: AnalysisPlan["multiplicity"]["primary"],
  alpha: number,
  note = "",
): void {
  const members = contrasts.filter((c) => !("error" in c.oddsRatio) && Number.isFinite(c.oddsRatio.p));
  if (members.length === 0) return;
  const adjusted = adjustPValues(
    members.map((c) => (c.oddsRatio as { p: number }).p),
    method,
    alpha,
  );
  members.forEach((c, i) => {
    const or = c.oddsRatio as { pAdjusted: number | null; adjustment: string | null };
    or.pAdjusted = adjusted.adjusted[i];
    or.adjustment = `${method} over ${members.length} test(s)${note}`;
  });
}

/** Significance (after adjustment) and TOST equivalence read together, as ScaffoldSafety 4.3 does. */
export function verdictOf(contrast: Contrast, alpha: number): string {
  if (contrast.notComparable) return contrast.notComparable;
  const verdict = pairedVerdict(contrast, alpha);
  return contrast.pairing?.mode === "unpaired" ? `${verdict} (unpaired: different item sets)` : verdict;
}

function pairedVerdict(contrast: Contrast, alpha: number): string {
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
