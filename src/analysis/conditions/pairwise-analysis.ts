/**
 * The all-pairwise family (ScaffoldSafety App. Q.3.3, Table 43): every pair of primary
 * configurations (the reference included; 4 configurations give 6 contrasts), each an odds ratio
 * from the primary model (condition, model, benchmark and other-facet fixed effects), tested
 * with the cluster-robust Wald z of b_j - b_i (covariance included), Holm-adjusted within the
 * family (multiplicity.pairwise). Beside it the marginal rates and their difference.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { Interval } from "../../stats/index.js";
import { adjustPValues, covarianceMatrix, normalTwoSidedP } from "../../stats/index.js";
import { fitScopeGlm } from "../core/contrast-model.js";
import { attempt, type ScoredRow, sumOf } from "../core/data.js";
import { casesByLevel, intersect, NOT_COMPARABLE } from "../core/pairing.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import { defineTable, renderText } from "../core/result-table.js";
import { bracket, num, pct, pp, pValue } from "../core/text.js";
import { withInterval } from "./contrasts-tables.js";
import { pooledFormatsNote } from "./format-pooling.js";

export interface PairwiseContrast {
  /** `second` against `first`, in the declared level order. */
  first: string;
  second: string;
  rateFirst: number;
  rateSecond: number;
  /** rateSecond - rateFirst (marginal). */
  riskDifference: number;
  /** exp(b_second - b_first), adjusted for the model's fixed effects. */
  oddsRatio: number;
  ci95: Interval;
  z: number;
  p: number;
  pAdjusted: number;
}

export interface PairwiseFamily {
  configurations: string[];
  formula: string;
  adjustment: string;
  contrasts: PairwiseContrast[];
  /** Pairs left out because the two configurations share no case ("second vs first"). */
  notComparable?: string[];
}

declare module "../core/registry.js" {
  interface AnalysisResults {
    pairwise: PairwiseFamily | Skipped;
  }
}

const Z95 = 1.959963984540054;

export function pairwiseFamily(ctx: AnalysisContext): PairwiseFamily | Skipped {
  if (!ctx.plan.hypotheses.all_pairs) return { skipped: "not in the plan (hypotheses.all_pairs: false)" };
  const { reference, comparisonFacet: facet, levels, families } = ctx.resolved;
  const primary = families.find((f) => f.name === "primary")?.conditions ?? [];
  const configurations = levels.filter((l) => l === reference || primary.includes(l));
  if (configurations.length < 2) return { skipped: "fewer than two primary configurations in the data" };
  const fitted = attempt(() => fitScopeGlm(ctx.main, ctx.setup));
  if ("error" in fitted) return { skipped: `primary model not estimable: ${fitted.error}` };
  const { fit, formula } = fitted.value;
  const v = covarianceMatrix(fit);
  const k = fit.design.nCols;
  // The reference's coefficient is 0 (treatment coding); -1 marks it.
  const column = (level: string) => (level === reference ? -1 : fit.coefficientNames.indexOf(`${facet}[T.${level}]`));
  const beta = (j: number) => (j < 0 ? 0 : fit.coefficients[j]);
  const cov = (i: number, j: number) => (i < 0 || j < 0 ? 0 : v[i * k + j]);
  const rate = (level: string) => {
    const rows: ScoredRow[] = ctx.main.filter((s) => s.row.facets[facet] === level);
    return rows.length ? sumOf(rows) / rows.length : Number.NaN;
  };
  const contrasts: Omit<PairwiseContrast, "pAdjusted">[] = [];
  const cases = casesByLevel(ctx.main, facet);
  const notComparable: string[] = [];
  for (let a = 0; a < configurations.length; a++) {
    for (let b = a + 1; b < configurations.length; b++) {
      const [first, second] = [configurations[a], configurations[b]];
      if (intersect(cases.get(first) ?? new Set(), cases.get(second) ?? new Set()).size === 0) {
        notComparable.push(`${second} vs ${first}`);
        continue;
      }
      const i = column(first);
      const j = column(second);
      if ((first !== reference && i < 0) || j < 0) continue;
      const estimate = beta(j) - beta(i);
      const se = Math.sqrt(cov(j, j) + cov(i, i) - 2 * cov(i, j));
      const z = estimate / se;
      const [rateFirst, rateSecond] = [rate(first), rate(second)];
      contrasts.push({
        first,
        second,
        rateFirst,
        rateSecond,
        riskDifference: rateSecond - rateFirst,
        oddsRatio: Math.exp(estimate),
        ci95: [Math.exp(estimate - Z95 * se), Math.exp(estimate + Z95 * se)],
        z,
        p: normalTwoSidedP(z),
      });
    }
  }
  const method = ctx.plan.multiplicity.pairwise;
  const adjusted = adjustPValues(
    contrasts.map((c) => c.p),
    method,
    ctx.plan.multiplicity.alpha,
  ).adjusted;
  return {
    configurations,
    formula,
    adjustment: `${method} over ${contrasts.length} pair(s)`,
    contrasts: contrasts.map((c, n) => ({ ...c, pAdjusted: adjusted[n] })),
    ...(notComparable.length ? { notComparable } : {}),
  };
}

/**
 * Every pair of the primary configurations (the --full summary and the report). The terminal
 * reads both p values in one column, the report in two.
 */
export const PAIRWISE_TABLE = defineTable<PairwiseContrast>({
  name: "all-pairwise family",
  columns: [
    { key: "pair", header: "pair", cell: (c) => `${c.second} vs ${c.first}` },
    { key: "rates", header: "rates", unit: "%", cell: (c) => `${pct(c.rateSecond)} / ${pct(c.rateFirst)}` },
    { key: "rd", header: "RD", unit: "pp", align: "right", cell: (c) => pp(c.riskDifference) },
    {
      key: "or",
      header: "OR [95% CI]",
      align: "right",
      cell: (c, rendering) =>
        rendering === "html"
          ? withInterval(num(c.oddsRatio), c.ci95, (x) => num(x))
          : `${num(c.oddsRatio)} ${bracket(c.ci95, (x) => num(x))}`,
    },
    {
      key: "pBoth",
      header: "p raw / adj",
      shownIn: ["text", "markdown"],
      cell: (c) => `${pValue(c.p)} / ${pValue(c.pAdjusted)}`,
    },
    { key: "p", header: "p", align: "right", shownIn: ["html"], cell: (c) => pValue(c.p) },
    { key: "pAdjusted", header: "p adjusted", align: "right", shownIn: ["html"], cell: (c) => pValue(c.pAdjusted) },
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const f = analysis.pairwise;
  if ("skipped" in f) return [`all-pairwise family: skipped (${f.skipped})`, ""];
  return [
    `all-pairwise family of the primary configurations (${f.adjustment}; ORs from ${f.formula}, cluster-robust)`,
    ...renderText(PAIRWISE_TABLE, f.contrasts),
    ...(f.notComparable?.length ? [`  ${f.notComparable.join("; ")}: ${NOT_COMPARABLE}`] : []),
    "",
  ];
}

registerAnalysis({
  name: "pairwise",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({ hypotheses: true, multiplicity: true }),
  result: "pairwise",
  run: pairwiseFamily,
  summary: ({ analysis }) => summaryLines(analysis),
});
