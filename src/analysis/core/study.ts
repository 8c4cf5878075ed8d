/**
 * analyzeStudy: every registered analysis (all-analyses.ts) on one table, as one typed,
 * JSON-serialisable result. Pure (no I/O): the study-directory wrapper adds the methodology
 * stamp and deviations.
 */
import type { AnalysisPlan } from "../../contracts/analysis.js";
import type { StudyKind } from "../../contracts/study-kind.js";
import { PARALLAX_VERSION } from "../../core/version.js";
import "../all-analyses.js";
import { type GlmSetup, termFacets } from "./contrast-model.js";
import { gateVerdicts } from "../integrity/gate.js";
import type { IntegrityFacts, JudgeFacts } from "../integrity/registry.js";
import { distinctValues, scoredPopulations, varyingFacets } from "./data.js";
import { leftOutReason, studyKinds } from "./kinds.js";
import { casesByLevel } from "./pairing.js";
import { analysedRows, resolvePlan } from "./plan.js";
import {
  type AnalysisContext,
  type AnalysisResults,
  type LeftOut,
  type RegisteredAnalysis,
  registeredAnalyses,
  type StudyAnalysis,
} from "./registry.js";
import { analyzeFamilies, otherFamilyRows, primaryTable, type RecordedFamilies } from "./families.js";
import { type AnalysisTable, RUN_TIME_SCORER, selectScorer, tableScorers } from "./table.js";

export type { Skipped, StudyAnalysis } from "./registry.js";

function primaryName(families: RecordedFamilies): string | null {
  return Object.entries(families).find(([, f]) => f.role === "primary")?.[0] ?? null;
}

export interface AnalyzeOptions {
  /** Clock for the result's timestamp (tests pin it). */
  now?: () => Date;
  /** Outcomes of this scorer when the table holds several (default: the run-time outcome). */
  scorer?: string;
  /** The judges' agreement and blinding (study directories), read by the judge-quality check. */
  judges?: JudgeFacts;
  /** Study-directory facts some integrity checks read (the gold letters of the items as formatted). */
  integrityFacts?: IntegrityFacts;
  /** What each benchmark measures, from its loader's meta (study directories). */
  measures?: Record<string, "safety" | "capability">;
  /** Benchmark id -> why CFR_theta is N/A there (its loader's meta.noPassThreshold; study directories). */
  cfrNotApplicable?: Record<string, string>;
  /** The study's kinds as its spec declares them (`kind`/`kinds`); absent: read from its design. */
  kinds?: readonly StudyKind[];
  /** The study's families as its manifest records them: the primary's rows are analysed, the others apart. */
  families?: RecordedFamilies;
}

export async function analyzeStudy(
  input: AnalysisTable,
  plan: AnalysisPlan,
  options: AnalyzeOptions = {},
): Promise<StudyAnalysis> {
  const selected = selectScorer(input, options.scorer);
  // With families, every registered analysis reads the primary family's rows only.
  const table = primaryTable(selected, options.families);
  const context = {
    ...contextOf(table, plan),
    judges: options.judges,
    integrityFacts: options.integrityFacts,
    input: primaryTable(input, options.families),
    ...(options.families ? { otherFamilies: otherFamilyRows(selected, options.families) } : {}),
    ...(options.cfrNotApplicable ? { cfrNotApplicable: options.cfrNotApplicable } : {}),
  };
  const results: Partial<AnalysisResults> = {};
  const kinds = studyKinds(context, options.kinds);
  const leftOut: LeftOut[] = [];
  const analyses = registeredAnalyses();
  const startedEarly = new Map<RegisteredAnalysis, Promise<Started>>();
  // Starts each later analysis whose declared inputs (startsAfter) are in, before its turn.
  const startReady = async (from: number) => {
    for (const later of analyses.slice(from)) {
      if (!later.start || !later.startsAfter || startedEarly.has(later)) continue;
      if (!later.startsAfter.every((key) => results[key] !== undefined)) continue;
      if (leftOutReason(later, kinds.kinds, { ...context, results }) !== null) continue;
      const starting = begin(later, { ...context, results });
      startedEarly.set(later, starting);
      await starting;
    }
  };
  const finishing: { key: string; result: Promise<unknown> }[] = [];
  await startReady(0);
  for (const [at, analysis] of analyses.entries()) {
    const early = startedEarly.get(analysis);
    const reason = early ? null : leftOutReason(analysis, kinds.kinds, { ...context, results });
    if (reason !== null) {
      leftOut.push({ analysis: analysis.name, reason });
      continue;
    }
    if (!analysis.result) continue;
    const key = analysis.result;
    if (analysis.start) {
      const { result } = await (early ?? begin(analysis, { ...context, results }));
      // Its place among the results, filled in once it finishes.
      (results as Record<string, unknown>)[key] = undefined;
      finishing.push({ key, result });
      continue;
    }
    if (!analysis.run) continue;
    (results as Record<string, unknown>)[key] = await analysis.run({ ...context, results });
    await startReady(at + 1);
  }
  const { resolved } = context;
  // The families read no analysis's result: computed while the started analyses finish.
  const families = options.families
    ? analyzeFamilies(options.families, {
        table: selected,
        plan,
        facet: resolved.comparisonFacet,
        defaultReference: resolved.reference,
      })
    : undefined;
  for (const { key, result } of finishing) (results as Record<string, unknown>)[key] = await result;
  if (results.integrity)
    gateVerdicts(results, results.integrity, context.resolved.reference, context.resolved.comparisonFacet);
  return {
    meta: {
      parallaxVersion: PARALLAX_VERSION,
      analyzedAt: (options.now?.() ?? new Date()).toISOString(),
      source: table.source,
      simulated: table.source.simulated,
      plan,
      comparisonFacet: resolved.comparisonFacet,
      reference: resolved.reference,
      levels: resolved.levels,
      restrict: resolved.restrict,
      configurationFacets: context.configurationFacets,
      primaryPopulation: plan.population,
      notes: [
        ...resolved.notes,
        ...(kinds.kinds.includes("comparison") ? resolved.comparisonNotes : []),
        ...scorerNotes(input, table),
      ],
      ...(options.measures ? { measures: options.measures } : {}),
      selection: { ...kinds, leftOut },
    },
    counts: countsOf(table, context.rows, context.benchmarks),
    ...(results as AnalysisResults),
    ...(families ? { families: { primary: primaryName(options.families!), others: families } } : {}),
  };
}

interface Started {
  result: Promise<unknown>;
}

/**
 * Starts an analysis that finishes on worker threads (RegisteredAnalysis.start). Its result is
 * awaited after the later analyses: a failure before then is not an unhandled rejection.
 */
async function begin(analysis: RegisteredAnalysis, context: AnalysisContext): Promise<Started> {
  const { result } = await analysis.start!(context);
  result.catch(() => undefined);
  return { result };
}

/** Names the other scorers the table holds, so a reader knows the outcome could be chosen otherwise. */
function scorerNotes(input: AnalysisTable, selected: AnalysisTable): string[] {
  const others = tableScorers(input).filter((s) => s !== (selected.source.scorer ?? RUN_TIME_SCORER));
  return others.length ? [`other stored scorers: ${others.join(", ")} (analyze --scorer NAME)`] : [];
}

/** The rows, populations and model setup every registered analysis reads. */
function contextOf(table: AnalysisTable, plan: AnalysisPlan): AnalysisContext {
  const resolved = resolvePlan(plan, table);
  const { comparisonFacet: facet, reference } = resolved;
  const rows = analysedRows(table.rows, resolved);
  const setup: GlmSetup = {
    comparisonFacet: facet,
    reference,
    covariateFacets: termFacets(table.facets, facet),
    designCases: casesByLevel(rows, facet),
  };
  const scored = scoredPopulations(rows);
  return {
    table,
    plan,
    resolved,
    rows,
    scored,
    main: scored[plan.population],
    setup,
    configurationFacets: varyingFacets(rows, table.facets),
    benchmarks: distinctValues(rows.map((r) => r.benchmark)),
    results: {},
    ...(table.items ? { items: table.items } : {}),
  };
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
