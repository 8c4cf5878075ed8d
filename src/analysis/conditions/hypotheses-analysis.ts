/** The omnibus test (H1), the interaction blocks (H2, H3) and the trend (H4), the last three as one secondary family. */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { WaldTest } from "../../stats/index.js";
import { adjustPValues, describeAliased } from "../../stats/index.js";
import { type InteractionResult, interactionTests, type TrendResult, trendTest } from "./hypotheses.js";
import { type AnalysisContext, registerAnalysis, type StudyAnalysis } from "../core/registry.js";
import { NOT_INTERPRETABLE } from "../integrity/gate.js";
import { interactionScope } from "../integrity/cluster-scopes.js";
import type { VerdictGate } from "../integrity/registry.js";
import { defineTable, type ResultTable } from "../core/result-table.js";
import { bracket, num, pct, pEquals, pValue, wrap } from "../core/text.js";
import { pooledFormatsNote } from "./format-pooling.js";

export interface HypothesesResult {
  omnibus: WaldTest | { error: string } | null;
  interactions: InteractionResult[];
  trend: TrendResult | { error: string } | null;
  secondaryAdjustment: string;
}

declare module "../core/registry.js" {
  interface AnalysisResults {
    hypotheses: HypothesesResult;
  }
}

function hypotheses(ctx: AnalysisContext): HypothesesResult {
  const plan = ctx.plan;
  const pooled = ctx.results.contrasts?.[plan.population].pooled;
  if (!pooled) throw new Error("the hypotheses analysis reads the contrasts: register it after them");
  const interactions = interactionTests(ctx.main, ctx.setup, ctx.resolved);
  const trend = trendTest(ctx.main, ctx.setup, ctx.resolved);
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

/** The coefficients a Wald test left out, and why: df counts only the ones tested. */
function leftOutOfTest(test: WaldTest): string[] {
  return [
    ...(test.aliased?.length ? wrap(`    aliased in the design (R's NA), not tested: ${test.aliased.join(", ")}`) : []),
    ...(test.redundant?.length
      ? wrap(`    implied by the tested ones under the cluster-robust covariance, no df: ${test.redundant.join(", ")}`)
      : []),
  ];
}

/**
 * The interaction blocks, one row each (the report; the terminal says each in a line). The
 * heading names the secondary family's adjustment, the block the comparison facet.
 */
export function interactionsTable(comparisonFacet: string, adjustment: string): ResultTable<InteractionResult> {
  return defineTable<InteractionResult>({
    name: "interaction blocks",
    columns: [
      { key: "block", header: "block", cell: (i) => `${comparisonFacet} x ${i.with}` },
      {
        key: "chi2",
        header: "Wald chi2 (df)",
        align: "right",
        cell: (i) => (i.test ? `${num(i.test.chi2)} (${i.test.df})` : "-"),
      },
      { key: "p", header: "p", align: "right", cell: (i) => (i.notInterpretable ? "-" : pValue(i.test?.p)) },
      {
        key: "pAdjusted",
        header: `p adjusted (${adjustment})`,
        align: "right",
        cell: (i) => (i.notInterpretable ? "-" : pValue(i.test?.pAdjusted)),
      },
      {
        key: "note",
        header: "note",
        cell: (i) =>
          i.notInterpretable ? `not interpretable: ${i.notInterpretable} (not read)` : (i.skipped ?? i.formula),
      },
    ],
  });
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const h = analysis.hypotheses;
  const out = [`secondary hypotheses (${h.secondaryAdjustment})`];
  for (const i of h.interactions) {
    const statistic = i.test ? `Wald chi2(${i.test.df}) = ${num(i.test.chi2)}` : "";
    out.push(
      i.test && i.notInterpretable
        ? `  ${analysis.meta.comparisonFacet} x ${i.with}: ${NOT_INTERPRETABLE}: ${i.notInterpretable} (${statistic}, not read)`
        : i.test
          ? `  ${analysis.meta.comparisonFacet} x ${i.with}: ${statistic}, ${pEquals(i.test.p)}, adjusted ${pValue(i.test.pAdjusted)}`
          : `  ${analysis.meta.comparisonFacet} x ${i.with}: skipped (${i.skipped})`,
    );
    if (i.test) out.push(...leftOutOfTest(i.test));
  }
  const t = h.trend;
  if (t && "error" in t) out.push(`  trend: not estimable (${t.error})`);
  else if (t) {
    out.push(
      `  trend over ${t.order.join(" < ")}: OR per step ${num(t.oddsRatioPerStep)} ${bracket(t.oddsRatioCi95, (v) => num(v))}, ${pEquals(t.p, `p (${t.alternative})`)}, adjusted ${pValue(t.pAdjusted)}`,
      // Older records lack the field.
      ...(t.aliased?.length ? wrap(`    aliased, left out as R's glm does: ${describeAliased(t.aliased)}`) : []),
      `  isotonic fit (${t.isotonicDirection}): ${t.rates.map((r) => `${r.level} ${pct(r.rate)} -> ${pct(r.isotonic)}`).join(", ")}`,
      "error" in t.jonckheere
        ? `  Jonckheere-Terpstra: not computable (${t.jonckheere.error})`
        : `  Jonckheere-Terpstra (sensitivity, order only): J = ${num(t.jonckheere.statistic, 1)}, z = ${num(t.jonckheere.z)}, ${pEquals(t.jonckheere.p, `p (${t.alternative})`)}`,
    );
    if (t.unscored.length) out.push(`  not in the trend (no declared score): ${t.unscored.join(", ")}`);
  }
  return [...out, ""];
}

/** The interaction tests (condition x model, x benchmark) computed: each has a scope to check. */
function testedScopes(h: HypothesesResult, comparisonFacet: string | undefined): string[] {
  if (!comparisonFacet) return [];
  return h.interactions.filter((i) => i.test).map((i) => interactionScope(comparisonFacet, i.with));
}

/** An interaction test with too few clusters for its model is not read. */
function gateInteractions(h: HypothesesResult, gate: VerdictGate): void {
  const facet = gate.comparisonFacet;
  if (!facet) return;
  for (const i of h.interactions) {
    if (!i.test) continue;
    const failure = gate.scopeFailure(interactionScope(facet, i.with));
    if (!failure) continue;
    i.notInterpretable = failure.reason;
    gate.downgraded(failure, `interaction ${facet} x ${i.with}`);
  }
}

registerAnalysis({
  name: "hypotheses",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({ hypotheses: true, multiplicity: true }),
  result: "hypotheses",
  run: hypotheses,
  testedScopes,
  gate: gateInteractions,
  summary: ({ analysis }) => summaryLines(analysis),
});
