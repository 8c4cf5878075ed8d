/**
 * Each condition vs the reference, pooled and per benchmark, in both populations (OR with
 * cluster-robust CIs, bootstrap RD/RR, TOST, NNH, adjusted p), and the scorecard's NNH table.
 */
import { type AnalysisPlan, AnalysisPlanSchema } from "../../contracts/analysis.js";
import {
  allContrastScopes,
  facetFixedByBenchmark,
  analyzeScope,
  type Contrast,
  type ContrastGroup,
  type ContrastScope,
  contrastGroups,
  type PopulationContrasts,
  type ScopeModel,
  scopeLabel,
  shownNumberNeeded,
  shownRdInterval,
  verdictOf,
  adjustContrastPValues,
} from "../core/contrast-model.js";
import { renderMarkdown, renderText } from "../core/result-table.js";
import { NOT_INTERPRETABLE } from "../integrity/gate.js";
import { MIN_INFORMATION } from "../integrity/cluster-scopes.js";
import type { VerdictGate } from "../integrity/registry.js";
import { recoveryOverviewLine } from "./format.js";
import {
  CONTRAST_OVERVIEW_TABLE,
  CONTRAST_TABLE,
  NNH_TABLE,
  type NnhRow,
  RESIDUAL_NNH_TABLE,
  type ResidualNnhRow,
} from "./contrasts-tables.js";
import type { ResolvedFamily } from "../core/plan.js";

export type { ContrastGroup, PopulationContrasts } from "../core/contrast-model.js";
export type { NnhRow, ResidualNnhRow } from "./contrasts-tables.js";
export { allContrastScopes, contrastGroups, scopeLabel } from "../core/contrast-model.js";
import { distinctValues, type Population, type ScoredRow } from "../core/data.js";
import { type AnalysisContext, cardField, registerAnalysis, type StudyAnalysis } from "../core/registry.js";
import { md, num, pct, outcomeWords, pEquals, rateNoun } from "../core/text.js";

declare module "../core/registry.js" {
  interface AnalysisResults {
    contrasts: Record<Population, PopulationContrasts>;
  }
  interface ScorecardFields {
    nnh: NnhCard;
  }
}

/** The scorecard's NNH field (ScaffoldSafety App. F.2 (2) and App. I). */
export interface NnhCard {
  reference: string;
  /** What the rate is called over the analysed benchmarks (absent in older records: both words). */
  noun?: ReturnType<typeof rateNoun>;
  rows: NnhRow[];
  /** Option-preserving decomposition, or why it is absent. */
  residual:
    | { standard: string; preserving: string; restrictedTo: string | null; rows: ResidualNnhRow[] }
    | { skipped: string };
}

function contrasts(ctx: AnalysisContext): Record<Population, PopulationContrasts> {
  const { levels } = ctx.resolved;
  const formats = formatStrata(ctx);
  const { families } = ctx.resolved;
  return {
    itt: contrastsFor({
      scored: ctx.scored.itt,
      benchmarks: ctx.benchmarks,
      model: { population: "itt", levels, setup: ctx.setup, plan: ctx.plan },
      formats,
      families,
    }),
    pp: contrastsFor({
      scored: ctx.scored.pp,
      benchmarks: ctx.benchmarks,
      model: { population: "pp", levels, setup: ctx.setup, plan: ctx.plan },
      formats,
      families,
    }),
  };
}

/** The format facet and its levels when the analysed rows show two or more formats; else null. */
function formatStrata(ctx: AnalysisContext): { facet: string; levels: string[] } | null {
  const facet = ctx.plan.format.facet;
  if (facet === ctx.resolved.comparisonFacet || !ctx.table.facets.includes(facet)) return null;
  const present = new Set(ctx.rows.map((r) => r.facets[facet]));
  // A format each benchmark fixes (MC benchmarks beside open-ended XSTest) is no format comparison.
  if (present.size < 2 || facetFixedByBenchmark(ctx.rows, facet)) return null;
  const order = ctx.table.facetLevels[facet] ?? [];
  return { facet, levels: [...order.filter((l) => present.has(l)), ...[...present].filter((l) => !order.includes(l))] };
}

/** One format's contrasts (null: every format): pooled, and per benchmark and per model when several. */
function groupFor(
  format: string | null,
  scored: readonly ScoredRow[],
  benchmarks: string[],
  model: ScopeModel,
): ContrastGroup {
  const tag = (scope: ContrastScope, kind: ContrastScope["kind"]): ContrastScope => ({
    ...scope,
    kind,
    ...(format === null ? {} : { format }),
  });
  const pooled = tag(analyzeScope("pooled", scored, model), "pooled");
  const byBenchmark =
    benchmarks.length > 1
      ? benchmarks.map((b) =>
          tag(
            analyzeScope(
              b,
              scored.filter((s) => s.row.benchmark === b),
              model,
            ),
            "benchmark",
          ),
        )
      : [];
  const models = distinctValues(scored.map((s) => s.row.model));
  const byModel =
    models.length > 1
      ? models.map((m) =>
          tag(
            analyzeScope(
              m,
              scored.filter((s) => s.row.model === m),
              model,
            ),
            "model",
          ),
        )
      : [];
  return { format, pooled, byBenchmark, byModel };
}

/** What one population's contrasts are computed from. */
interface ContrastsInput {
  scored: readonly ScoredRow[];
  benchmarks: string[];
  model: ScopeModel;
  /** The format facet and its levels when every presented contrast is within one format, else null. */
  formats: { facet: string; levels: string[] } | null;
  /** The declared families, each adjusted within. */
  families: readonly ResolvedFamily[];
}

function contrastsFor({ scored, benchmarks, model, formats, families }: ContrastsInput): PopulationContrasts {
  const { primary, secondary, alpha } = model.plan.multiplicity;
  // Each declared family (the primary configurations, then the plan's `families`) is adjusted within.
  const adjustPooled = (pooled: ContrastScope[]) => {
    for (const family of families) adjustFamily(pooled, primary, alpha, family);
  };
  if (formats === null) {
    const group = groupFor(null, scored, benchmarks, model);
    adjustPooled([group.pooled]);
    adjustFamily(group.byBenchmark, secondary, alpha);
    adjustFamily(group.byModel, secondary, alpha);
    return { pooled: group.pooled, byBenchmark: group.byBenchmark, byModel: group.byModel };
  }
  // Format is a facet: every presented contrast is within one format. The all-format scope
  // (format as a fixed effect) is kept for the omnibus test only.
  const pooled: ContrastScope = {
    ...analyzeScope("pooled", scored, model),
    kind: "pooled",
    acrossFormats: true,
  };
  adjustPooled([pooled]);
  const byFormat = formats.levels.map((format) =>
    groupFor(
      format,
      scored.filter((s) => s.row.facets[formats.facet] === format),
      benchmarks,
      model,
    ),
  );
  // The primary families: each format's pooled contrasts, adjusted together within a family.
  adjustPooled(byFormat.map((g) => g.pooled));
  adjustFamily(
    byFormat.flatMap((g) => g.byBenchmark),
    secondary,
    alpha,
  );
  adjustFamily(
    byFormat.flatMap((g) => g.byModel),
    secondary,
    alpha,
  );
  return { pooled, byBenchmark: [], byModel: [], byFormat };
}

/** Adjusts the odds-ratio p-values of every contrast in these scopes as one family, then sets verdicts. */
function adjustFamily(
  scopes: ContrastScope[],
  method: AnalysisPlan["multiplicity"]["primary"],
  alpha: number,
  family?: ResolvedFamily,
): void {
  const inFamily = (c: Contrast) => !family || family.conditions.includes(c.condition);
  const members = scopes.flatMap((s) => s.contrasts).filter(inFamily);
  adjustContrastPValues(members, method, alpha, family ? ` (family ${family.name})` : "");
  for (const c of scopes.flatMap((s) => s.contrasts).filter(inFamily)) c.verdict = verdictOf(c, alpha);
}

function scopeLines(scope: ContrastScope, title: string): string[] {
  const ref = scope.contrasts[0]?.referenceRate;
  const lines = [
    `${title} (${scope.population.toUpperCase()}; n=${scope.nRows}, ${scope.nClusters} cases; reference rate ${pct(ref?.rate)})`,
  ];
  lines.push(...renderText(CONTRAST_TABLE, scope.contrasts));
  const omnibus = omnibusText(scope);
  if (omnibus) lines.push(`omnibus Wald: ${omnibus}`);
  return [...lines, ""];
}

/** The omnibus statistic, or why the integrity gate left it unread (the statistic kept for reference). */
function omnibusText(scope: ContrastScope): string | null {
  if (!scope.omnibus || !("chi2" in scope.omnibus)) return null;
  const statistic = `chi2(${scope.omnibus.df}) = ${num(scope.omnibus.chi2)}`;
  return scope.omnibusNotInterpretable
    ? `${NOT_INTERPRETABLE}: ${scope.omnibusNotInterpretable} (${statistic}, not read)`
    : `${statistic}, ${pEquals(scope.omnibus.p)}`;
}

function omnibusLine(scope: ContrastScope): string[] {
  const omnibus = omnibusText(scope);
  return omnibus ? [`omnibus Wald over every format (${scope.formula}): ${omnibus}`, ""] : [];
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const primaryPopulation = analysis.meta.primaryPopulation;
  const primary = analysis.contrasts[primaryPopulation];
  const other = primaryPopulation === "itt" ? "pp" : "itt";
  const lines: string[] = [];
  if (primary.byFormat?.length) {
    lines.push(
      "format is a facet: every contrast of this part (each condition vs the reference) is within one format, never pooled across formats; the omnibus test alone takes every format (format as a fixed effect), and the sections that pool formats say so",
      "",
    );
    lines.push(...omnibusLine(primary.pooled));
  }
  for (const g of contrastGroups(primary)) {
    const at = g.format ? ` at format ${g.format}` : "";
    lines.push(...scopeLines(g.pooled, `each condition vs the reference, pooled${at}`));
  }
  for (const g of contrastGroups(analysis.contrasts[other])) {
    lines.push(...scopeLines(g.pooled, `the same, other population${g.format ? ` at format ${g.format}` : ""}`));
  }
  for (const g of contrastGroups(primary)) {
    lines.push(...g.byBenchmark.flatMap((scope) => scopeLines(scope, `benchmark ${scopeLabel(scope)}`)));
    lines.push(...g.byModel.flatMap((scope) => scopeLines(scope, scopeLabel(scope))));
  }
  return lines;
}

/**
 * The main contrasts for the overview: each condition vs the reference, pooled, in the primary
 * population (per format), in the narrow columns a terminal holds (the OR and the NNT/NNH
 * interval are in --full, analysis.json and the report).
 */
function overviewLines(analysis: StudyAnalysis): string[] {
  const primary = analysis.contrasts[analysis.meta.primaryPopulation];
  const op = analysis.optionPreserving;
  const recoveryAt = op && !("skipped" in op) ? op.restrictedTo : null;
  const groups = contrastGroups(primary);
  return groups.flatMap((g, i) => {
    const scope = g.pooled;
    // The recovery explains the standard variant's loss: it goes under the table of its format.
    const recovery = (recoveryAt ? `${formatFacetOf(recoveryAt)}=${g.format}` === recoveryAt : i === groups.length - 1)
      ? recoveryOverviewLine(op)
      : [];
    const at = g.format ? ` at format ${g.format}` : "";
    const omnibusRead = omnibusText(scope);
    const omnibus = omnibusRead ? `; omnibus ${omnibusRead}` : "";
    return [
      ...(i > 0 ? [""] : []),
      `each condition vs ${analysis.meta.reference}, pooled${at} (${scope.population.toUpperCase()}, reference rate ${pct(
        scope.contrasts[0]?.referenceRate?.rate,
      )}${omnibus})`,
      ...renderText(CONTRAST_OVERVIEW_TABLE, scope.contrasts),
      ...recovery,
    ];
  });
}

/** "format" of "format=mc". */
function formatFacetOf(restrictedTo: string): string {
  return restrictedTo.slice(0, restrictedTo.indexOf("="));
}

function nnhRows(analysis: StudyAnalysis): NnhRow[] {
  return contrastGroups(analysis.contrasts[analysis.meta.primaryPopulation]).flatMap((g) =>
    [g.pooled, ...g.byBenchmark, ...g.byModel].flatMap((scope) =>
      scope.contrasts.map(
        (c): NnhRow => ({
          scope: scopeLabel(scope),
          kind: scope.kind ?? (scope.scope === "pooled" ? "pooled" : "benchmark"),
          format: scope.format ?? null,
          condition: c.condition,
          riskDifference: c.riskDifference?.estimate ?? null,
          rdCi95: shownRdInterval(c),
          nnh: shownNumberNeeded(c),
          equivalent: c.notInterpretable ? null : (c.equivalence?.equivalent ?? null),
          verdict: c.verdict,
        }),
      ),
    ),
  );
}

function residualRows(analysis: StudyAnalysis): NnhCard["residual"] {
  const op = analysis.optionPreserving;
  if (!op) return { skipped: "no option-preserving analysis in this record" };
  if ("skipped" in op) return op;
  return {
    standard: op.standard,
    preserving: op.preserving,
    restrictedTo: op.restrictedTo,
    rows: op.rows.map((r) => ({
      model: r.model === "all" ? "all models" : r.model,
      headline: r.notInterpretable ? null : (r.headline ?? null),
      residual: r.notInterpretable ? null : r.residualNnh,
      recovery: r.notInterpretable ? null : r.recovery.estimate,
      recoveryCi95: r.notInterpretable ? null : r.recovery.ci95,
      note: r.notInterpretable ? `not interpretable: ${r.notInterpretable}` : r.undefinedReason,
    })),
  };
}

function nnhCard(analysis: StudyAnalysis): NnhCard {
  return {
    reference: analysis.meta.reference,
    noun: rateNoun(analysis.counts.benchmarks, analysis.meta.measures),
    rows: nnhRows(analysis),
    residual: residualRows(analysis),
  };
}

/** NNH's meaning, said once above the table (scorecard.md and the report). */
export function nnhExplanation(
  reference: string,
  noun: ReturnType<typeof rateNoun> = "safety rate or accuracy",
): string {
  const { good, bad } = outcomeWords(noun);
  return `Against ${reference}: NNH = 1/|RD| cases routed through the configuration per additional ${bad} output when it harms; NNT, per additional ${good} one, when it helps. Rounded up to whole cases; 95% CIs by Altman's method (when the RD CI includes 0, the interval runs from NNT through infinity to NNH).`;
}

/** The residual NNH's meaning (App. I). */
export function residualExplanation(standard: string, preserving: string, restrictedTo: string | null): string {
  return `Option-preserving decomposition (App. I)${restrictedTo ? `, at ${restrictedTo}` : ""}: the headline NNH of ${standard} against the reference, and the residual NNH of ${preserving}, what is left once the options reach every sub-call.`;
}

function nnhMarkdown(card: NnhCard | NnhRow[], reference: string): string[] {
  // Scorecards written before the card held residual NNHs store the rows alone.
  const value: NnhCard = Array.isArray(card) ? { reference, rows: [], residual: { skipped: "older record" } } : card;
  const lines = [md(nnhExplanation(reference, value.noun)), "", ...renderMarkdown(NNH_TABLE, value.rows)];
  const residual = value.residual;
  if (!("skipped" in residual)) {
    lines.push(
      "",
      md(residualExplanation(residual.standard, residual.preserving, residual.restrictedTo)),
      "",
      ...renderMarkdown(RESIDUAL_NNH_TABLE, residual.rows),
    );
  }
  return lines;
}

/** The key of a contrast scope's tests, as the integrity checks' findings name it. */
function scopeKey(scope: ContrastScope): string {
  return scope.kind === "model" ? `model ${scope.scope}` : scope.scope;
}

/** The scopes with a test to check: a scope whose contrasts are all not comparable has none. */
function testedScopes(contrasts: Record<Population, PopulationContrasts>): string[] {
  return (["itt", "pp"] as const).flatMap((population) =>
    allContrastScopes(contrasts[population])
      .filter(({ scope }) => scope.contrasts.some((c) => !c.notComparable))
      .map(({ scope }) => scopeKey(scope)),
  );
}

/**
 * Every scope's contrasts (pooled, per benchmark, per model, each format's when format is a facet):
 * each reads its condition's and the reference's cells and its scope's test; the omnibus test its
 * scope's test. Too few cases (min_information) also withholds the contrast's intervals.
 */
function gateContrasts(contrasts: Record<Population, PopulationContrasts>, gate: VerdictGate): void {
  for (const population of ["itt", "pp"] as const) {
    for (const { scope, benchmark } of allContrastScopes(contrasts[population])) {
      const label = `${population.toUpperCase()} ${scope.kind === "model" ? "model " : ""}${scope.scope}${scope.format ? ` ${scope.format}` : ""}`;
      const testFailure = gate.scopeFailure(scopeKey(scope));
      for (const contrast of scope.contrasts) {
        // Two sides without a shared case have no verdict to downgrade.
        if (contrast.notComparable) continue;
        const failure =
          gate.cellFailure(benchmark, [contrast.condition, gate.reference]) ??
          testFailure ??
          gate.scopeFailure(scopeKey(scope), contrast.condition);
        if (!failure) continue;
        contrast.verdict = `${NOT_INTERPRETABLE}: ${failure.reason}`;
        contrast.notInterpretable = failure.reason;
        if (failure.checks.includes(MIN_INFORMATION)) contrast.withheld = failure.reason;
        gate.downgraded(failure, `${label} ${contrast.condition}`);
      }
      if (testFailure && scope.omnibus && "chi2" in scope.omnibus) {
        scope.omnibusNotInterpretable = testFailure.reason;
        gate.downgraded(testFailure, `${label} omnibus`);
      }
    }
  }
}

registerAnalysis({
  name: "contrasts",
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({
    comparability: true,
    equivalence: true,
    multiplicity: true,
    bootstrap: true,
    format: true,
  }),
  result: "contrasts",
  run: contrasts,
  testedScopes,
  gate: gateContrasts,
  summary: ({ analysis }) => summaryLines(analysis),
  overview: ({ analysis }) => overviewLines(analysis),
  card: [
    cardField({
      field: "nnh",
      title: "Number needed to harm (NNT/NNH)",
      build: ({ analysis }) => nnhCard(analysis),
      markdown: (card, header) => nnhMarkdown(card, header.comparison.reference),
    }),
  ],
});
