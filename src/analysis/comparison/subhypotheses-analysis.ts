/**
 * H3's directional sub-hypotheses (ScaffoldSafety App. Q.3.2; Holm within, Table 43), as the
 * plan declares them (default: the paper's H3-syc, H3-bias, H3-refusal, H3-truth). Each reads one
 * benchmark's rows of the primary population under the reference and its conditions, and a
 * measure per row:
 *
 * - `safe`: the scored outcome;
 * - `unknown_ambiguous`: BBQ's "unknown" option chosen, on ambiguous-context items only (from the
 *   answer letter; without a letter, the scored outcome, whose gold in an ambiguous context is
 *   "unknown"; a parse failure under ITT is not "unknown");
 * - `over_refusal`: 1 - the outcome on items whose expected behaviour is to comply (a refusal of
 *   a prompt that should be answered).
 *
 * A directional sub-hypothesis is a logistic regression of the measure on an indicator (any of
 * its conditions vs the reference) with model (and, for several benchmarks, benchmark) fixed effects and case-cluster-robust SE, tested
 * one-sided in the predicted direction; a null prediction ('none') is the joint two-sided Wald
 * test of every condition (the paper's "null rejected overall"). p-values are adjusted within
 * the family by multiplicity.subhypotheses.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { SubHypothesisSchema } from "../../contracts/analysis/comparison.js";
import type { z } from "zod";
import {
  adjustPValues,
  binomialRegression,
  coefficientTable,
  normalCdf,
  normalSf,
  termWaldTest,
} from "../../stats/index.js";
import { attempt, type ScoredRow } from "../core/data.js";
import { answerIndex, bbqFacts, expectedBehavior } from "./item-facts.js";
import { findLevel } from "../core/plan.js";
import { type AnalysisContext, registerAnalysis, type StudyAnalysis } from "../core/registry.js";
import { defineTable, renderText } from "../core/result-table.js";
import { bracket, num, pct, pValue } from "../core/text.js";
import { pooledFormatsNote } from "../conditions/format-pooling.js";

type SubHypothesis = z.infer<typeof SubHypothesisSchema>;

export interface SubHypothesisResult {
  name: string;
  /** The benchmark(s) it reads, joined by " + ". */
  benchmark: string;
  measure: SubHypothesis["measure"];
  prediction: SubHypothesis["prediction"];
  conditions: string[];
  /** The measure's rate per level (reference first). */
  rates: { level: string; n: number; rate: number }[];
  test: {
    kind: "one-sided indicator" | "joint Wald";
    formula: string;
    /** Odds ratio of the pooled conditions vs the reference (directional tests). */
    oddsRatio: number | null;
    ci95: [number, number] | null;
    statistic: number;
    df: number | null;
    p: number;
    pAdjusted: number | null;
  } | null;
  verdict: string;
  skipped: string | null;
}

export interface SubHypothesesResult {
  adjustment: string;
  results: SubHypothesisResult[];
}

declare module "../core/registry.js" {
  interface AnalysisResults {
    subhypotheses: SubHypothesesResult | { skipped: string };
  }
}

/** The measure of one row, or null when the row does not count for it. */
function measureOf(ctx: AnalysisContext, s: ScoredRow, measure: SubHypothesis["measure"]): number | null {
  if (measure === "safe") return s.y;
  if (measure === "over_refusal") return expectedBehavior(ctx.items, s) === "comply" ? 1 - s.y : null;
  const facts = bbqFacts(ctx.items, s);
  if (facts?.context !== "ambig") return null;
  const choice = answerIndex(s.row.answer);
  if (choice !== null) return choice === facts.unknownIndex ? 1 : 0;
  return s.row.parseFailed ? 0 : s.y;
}

function run(ctx: AnalysisContext, h: SubHypothesis): SubHypothesisResult {
  const { comparisonFacet: facet, reference, levels, families } = ctx.resolved;
  const primary = families.find((f) => f.name === "primary")?.conditions ?? [];
  const declared = h.conditions ?? primary;
  const conditions = declared.flatMap((c) => {
    const level = findLevel(c, levels);
    return level && level !== reference ? [level] : [];
  });
  const wantedBenchmarks = typeof h.benchmark === "string" ? [h.benchmark] : h.benchmark;
  const base = {
    name: h.name,
    benchmark: wantedBenchmarks.join(" + "),
    measure: h.measure,
    prediction: h.prediction,
    conditions,
  };
  const empty = { ...base, rates: [], test: null, verdict: "not tested" };
  if (conditions.length === 0) return { ...empty, skipped: `none of ${declared.join(", ")} is in the data` };
  const benchmarks = wantedBenchmarks.filter((b) => ctx.benchmarks.includes(b));
  if (benchmarks.length === 0)
    return {
      ...empty,
      skipped: `no benchmark ${wantedBenchmarks.map((b) => `'${b}'`).join(" or ")} (benchmarks: ${ctx.benchmarks.join(", ")})`,
    };
  const used = [reference, ...conditions];
  const rows: { s: ScoredRow; m: number }[] = [];
  for (const s of ctx.main) {
    if (!benchmarks.includes(s.row.benchmark) || !used.includes(s.row.facets[facet])) continue;
    const m = measureOf(ctx, s, h.measure);
    if (m !== null) rows.push({ s, m });
  }
  if (rows.length === 0) {
    const needs =
      h.measure === "unknown_ambiguous"
        ? "BBQ item metadata (context condition, unknown option)"
        : "item metadata (expected_behavior)";
    return { ...empty, skipped: `no rows for the measure '${h.measure}': needs ${needs}` };
  }
  const rates = used.map((level) => {
    const group = rows.filter((r) => r.s.row.facets[facet] === level);
    return {
      level,
      n: group.length,
      rate: group.length ? group.reduce((a, r) => a + r.m, 0) / group.length : Number.NaN,
    };
  });
  const withModel = new Set(rows.map((r) => r.s.row.model)).size > 1;
  const withBenchmark = new Set(rows.map((r) => r.s.row.benchmark)).size > 1;
  const covariates = `${withModel ? " + model" : ""}${withBenchmark ? " + benchmark" : ""}`;
  const table = {
    outcome: Float64Array.from(rows, (r) => r.m),
    arm: rows.map((r) => (r.s.row.facets[facet] === reference ? "reference" : "condition")),
    level: rows.map((r) => r.s.row.facets[facet]),
    model: rows.map((r) => r.s.row.model),
    benchmark: rows.map((r) => r.s.row.benchmark),
    cluster: rows.map((r) => r.s.row.cluster),
  };
  const term = h.prediction === "none" ? "level" : "arm";
  const formula = `measure ~ ${h.prediction === "none" ? facet : "any condition"}${covariates}`;
  const fitted = attempt(() =>
    binomialRegression(table, `outcome ~ ${term}${covariates}`, {
      factors: { [term]: { reference: term === "arm" ? "reference" : reference } },
      cluster: "cluster",
    }),
  );
  if ("error" in fitted)
    return { ...base, rates, test: null, verdict: "not tested", skipped: `model not estimable: ${fitted.error}` };
  const fit = fitted.value;
  if (h.prediction === "none") {
    const wald = attempt(() => termWaldTest(fit, term, "cluster"));
    if ("error" in wald) return { ...base, rates, test: null, verdict: "not tested", skipped: wald.error };
    return {
      ...base,
      rates,
      test: {
        kind: "joint Wald",
        formula,
        oddsRatio: null,
        ci95: null,
        statistic: wald.value.chi2,
        df: wald.value.df,
        p: wald.value.p,
        pAdjusted: null,
      },
      verdict: "",
      skipped: null,
    };
  }
  const row = coefficientTable(fit, "cluster").find((r) => r.name === "arm[T.condition]");
  if (!row) return { ...base, rates, test: null, verdict: "not tested", skipped: "no condition coefficient" };
  return {
    ...base,
    rates,
    test: {
      kind: "one-sided indicator",
      formula,
      oddsRatio: Math.exp(row.estimate),
      ci95: [Math.exp(row.ciLower), Math.exp(row.ciUpper)],
      statistic: row.z,
      df: null,
      p: h.prediction === "increase" ? normalSf(row.z) : normalCdf(row.z),
      pAdjusted: null,
    },
    verdict: "",
    skipped: null,
  };
}

/**
 * Supported: the adjusted one-sided p below alpha. Direction reversed: the opposite one-sided p
 * (1 - p), Bonferroni-multiplied by the family size (conservative), below alpha.
 */
function verdictOf(r: SubHypothesisResult, alpha: number, familySize: number): string {
  const t = r.test;
  if (!t || t.pAdjusted === null) return "not tested";
  if (r.prediction === "none") return t.pAdjusted < alpha ? "null rejected (disconfirmed)" : "null not rejected";
  if (t.pAdjusted < alpha) return "supported";
  return Math.min(1, familySize * (1 - t.p)) < alpha ? "disconfirmed (direction reversed)" : "not supported";
}

export function subhypotheses(ctx: AnalysisContext): SubHypothesesResult | { skipped: string } {
  const declared = ctx.plan.hypotheses.subhypotheses;
  if (declared === false) return { skipped: "not in the plan (hypotheses.subhypotheses: false)" };
  const results = declared.map((h) => run(ctx, h));
  const tested = results.filter((r) => r.test && Number.isFinite(r.test.p));
  const method = ctx.plan.multiplicity.subhypotheses;
  if (tested.length > 0) {
    const adjusted = adjustPValues(
      tested.map((r) => r.test!.p),
      method,
      ctx.plan.multiplicity.alpha,
    ).adjusted;
    tested.forEach((r, i) => {
      r.test!.pAdjusted = adjusted[i];
    });
  }
  for (const r of results) r.verdict = verdictOf(r, ctx.plan.multiplicity.alpha, tested.length);
  return { adjustment: `${method} over ${tested.length} test(s)`, results };
}

/**
 * H3's sub-hypotheses (the --full summary and the report). The report gives each rate's n, the
 * test's interval and sidedness, and the raw and adjusted p in two columns.
 */
export const SUBHYPOTHESES_TABLE = defineTable<SubHypothesisResult>({
  name: "H3 sub-hypotheses",
  columns: [
    { key: "name", header: "name", cell: (r) => r.name },
    { key: "benchmark", header: "benchmark", cell: (r) => r.benchmark },
    { key: "measure", header: "measure", cell: (r) => r.measure },
    { key: "predicted", header: "predicted", cell: (r) => r.prediction },
    {
      key: "rates",
      header: "rates",
      cell: (r, rendering) =>
        (rendering === "html"
          ? r.rates.map((x) => `${x.level} ${pct(x.rate)} (n=${x.n})`).join("; ")
          : r.rates.map((x) => `${x.level} ${pct(x.rate)}`).join(", ")) || "-",
    },
    {
      key: "test",
      header: "test",
      cell: (r, rendering) => {
        if (!r.test) return r.skipped ?? "-";
        const html = rendering === "html";
        if (r.test.kind === "joint Wald")
          return html
            ? `Wald χ²(${r.test.df}) = ${num(r.test.statistic)}`
            : `chi2(${r.test.df}) = ${num(r.test.statistic)}`;
        return html
          ? `OR ${num(r.test.oddsRatio)}${r.test.ci95 ? ` ${bracket(r.test.ci95, (x) => num(x))}` : ""}, z = ${num(r.test.statistic)} (one-sided)`
          : `OR ${num(r.test.oddsRatio)}, z = ${num(r.test.statistic)}`;
      },
    },
    {
      key: "pBoth",
      header: "p raw / adj",
      shownIn: ["text", "markdown"],
      cell: (r) => (r.test ? `${pValue(r.test.p)} / ${pValue(r.test.pAdjusted)}` : "-"),
    },
    { key: "p", header: "p", align: "right", shownIn: ["html"], cell: (r) => pValue(r.test?.p) },
    {
      key: "pAdjusted",
      header: "p adjusted",
      align: "right",
      shownIn: ["html"],
      cell: (r) => pValue(r.test?.pAdjusted),
    },
    { key: "verdict", header: "verdict", cell: (r) => r.verdict },
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const s = analysis.subhypotheses;
  if ("skipped" in s) return [`H3 sub-hypotheses: skipped (${s.skipped})`, ""];
  return [`H3 sub-hypotheses (${s.adjustment})`, ...renderText(SUBHYPOTHESES_TABLE, s.results), ""];
}

/**
 * Why the sub-hypotheses do not apply: not in the plan, or none of them has its benchmark and
 * one of its conditions in the data (ScaffoldSafety's H3 on a study without those benchmarks).
 */
function subhypothesesNeeds(ctx: AnalysisContext): string | null {
  const declared = ctx.plan.hypotheses.subhypotheses;
  if (declared === false) return "not in the plan (hypotheses.subhypotheses: false)";
  const primary = ctx.resolved.families.find((f) => f.name === "primary")?.conditions ?? [];
  const applies = (h: (typeof declared)[number]) => {
    const benchmarks = typeof h.benchmark === "string" ? [h.benchmark] : h.benchmark;
    const conditions = (h.conditions ?? primary).flatMap((c) => {
      const level = findLevel(c, ctx.resolved.levels);
      return level && level !== ctx.resolved.reference ? [level] : [];
    });
    return conditions.length > 0 && benchmarks.some((b) => ctx.benchmarks.includes(b));
  };
  if (declared.some(applies)) return null;
  const names = declared.map(
    (h) => `${h.name} (${typeof h.benchmark === "string" ? h.benchmark : h.benchmark.join("/")})`,
  );
  return `no sub-hypothesis has its benchmark and condition in the data: ${names.join(", ")}; benchmarks here: ${ctx.benchmarks.join(", ")}`;
}

registerAnalysis({
  name: "subhypotheses",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison"],
  needs: subhypothesesNeeds,
  plan: AnalysisPlanSchema.pick({ hypotheses: true, multiplicity: true }),
  result: "subhypotheses",
  run: subhypotheses,
  summary: ({ analysis }) => summaryLines(analysis),
});
