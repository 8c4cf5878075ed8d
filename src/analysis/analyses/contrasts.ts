/**
 * Each condition vs the reference, pooled and per benchmark, in both populations (OR with
 * cluster-robust CIs, bootstrap RD/RR, TOST, NNH, adjusted p), and the scorecard's NNH table.
 */
import { type AnalysisPlan, AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { Interval } from "../../stats/index.js";
import { adjustPValues } from "../../stats/index.js";
import { analyzeScope, type Contrast, type ContrastScope, type GlmSetup, verdictOf } from "../contrasts.js";
import type { Population, ScoredRow } from "../data.js";
import type { ResolvedFamily } from "../plan.js";
import { type AnalysisContext, cardField, registerAnalysis, type StudyAnalysis } from "../registry.js";
import { bracket, md, num, pct, pp, pValue, textTable } from "../text.js";

export type PopulationContrasts = { pooled: ContrastScope; byBenchmark: ContrastScope[] };

declare module "../registry.js" {
  interface AnalysisResults {
    contrasts: Record<Population, PopulationContrasts>;
  }
  interface ScorecardFields {
    nnh: NnhRow[];
  }
}

export interface NnhRow {
  scope: string;
  condition: string;
  riskDifference: number | null;
  rdCi95: Interval | null;
  nnh: number | null;
  nnhCi95: Interval | null;
  direction: "harm" | "benefit" | "none" | null;
  equivalent: boolean | null;
  verdict: string;
}

function contrasts(ctx: AnalysisContext): Record<Population, PopulationContrasts> {
  const { levels } = ctx.resolved;
  return {
    itt: contrastsFor("itt", ctx.scored.itt, ctx.benchmarks, levels, ctx.setup, ctx.plan, ctx.resolved.families),
    pp: contrastsFor("pp", ctx.scored.pp, ctx.benchmarks, levels, ctx.setup, ctx.plan, ctx.resolved.families),
  };
}

function contrastsFor(
  population: Population,
  scored: ScoredRow[],
  benchmarks: string[],
  levels: string[],
  setup: GlmSetup,
  plan: AnalysisPlan,
  families: readonly ResolvedFamily[],
): PopulationContrasts {
  const pooled = analyzeScope("pooled", population, scored, levels, setup, plan);
  // Each declared family (the primary configurations, then the plan's `families`) is adjusted within.
  for (const family of families) adjustFamily([pooled], plan.multiplicity.primary, plan.multiplicity.alpha, family);
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
function adjustFamily(
  scopes: ContrastScope[],
  method: AnalysisPlan["multiplicity"]["primary"],
  alpha: number,
  family?: ResolvedFamily,
): void {
  const inFamily = (c: Contrast) => !family || family.conditions.includes(c.condition);
  const members = scopes
    .flatMap((s) => s.contrasts)
    .filter((c) => inFamily(c) && !("error" in c.oddsRatio) && Number.isFinite(c.oddsRatio.p));
  if (members.length > 0) {
    const adjusted = adjustPValues(
      members.map((c) => (c.oddsRatio as { p: number }).p),
      method,
      alpha,
    );
    members.forEach((c, i) => {
      const or = c.oddsRatio as { pAdjusted: number | null; adjustment: string | null };
      or.pAdjusted = adjusted.adjusted[i];
      or.adjustment = `${method} over ${members.length} test(s)${family ? ` (family ${family.name})` : ""}`;
    });
  }
  for (const c of scopes.flatMap((s) => s.contrasts).filter(inFamily)) c.verdict = verdictOf(c, alpha);
}

function contrastRow(c: Contrast): string[] {
  const or = c.oddsRatio;
  return [
    c.condition,
    pct(c.rate?.rate),
    `${pp(c.riskDifference?.estimate)} ${bracket(c.riskDifference?.ci95, (v) => pp(v))}`,
    "error" in or ? "n/a" : `${num(or.estimate)} ${bracket(or.ci95, (v) => num(v))}`,
    "error" in or ? "-" : `${pValue(or.p)} / ${pValue(or.pAdjusted)}`,
    c.nnh?.value ? `${num(c.nnh.value, 1)} (${c.nnh.direction})` : "-",
    c.notInterpretable ? "n/i" : c.equivalence ? (c.equivalence.equivalent ? "yes" : "no") : "-",
    c.verdict,
  ];
}

function scopeLines(scope: ContrastScope, title: string): string[] {
  const ref = scope.contrasts[0]?.referenceRate;
  const lines = [
    `${title} (${scope.population.toUpperCase()}; n=${scope.nRows}, ${scope.nClusters} cases; reference rate ${pct(ref?.rate)})`,
  ];
  lines.push(
    ...textTable(
      ["condition", "rate", "RD [95% bootstrap CI]", "OR [95% cluster CI]", "p raw / adj", "NNH", "TOST", "verdict"],
      scope.contrasts.map(contrastRow),
    ),
  );
  if (scope.omnibus && "chi2" in scope.omnibus) {
    lines.push(`omnibus Wald: chi2(${scope.omnibus.df}) = ${num(scope.omnibus.chi2)}, p = ${pValue(scope.omnibus.p)}`);
  }
  return [...lines, ""];
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const primaryPopulation = analysis.meta.primaryPopulation;
  const primary = analysis.contrasts[primaryPopulation];
  const other = primaryPopulation === "itt" ? "pp" : "itt";
  return [
    ...scopeLines(primary.pooled, "each condition vs the reference, pooled"),
    ...scopeLines(analysis.contrasts[other].pooled, "the same, other population"),
    ...primary.byBenchmark.flatMap((scope) => scopeLines(scope, `benchmark ${scope.scope}`)),
  ];
}

function nnhRows(analysis: StudyAnalysis): NnhRow[] {
  const { pooled, byBenchmark } = analysis.contrasts[analysis.meta.primaryPopulation];
  return [pooled, ...byBenchmark].flatMap((scope) =>
    scope.contrasts.map((c) => ({
      scope: scope.scope,
      condition: c.condition,
      riskDifference: c.riskDifference?.estimate ?? null,
      rdCi95: c.riskDifference?.ci95 ?? null,
      nnh: c.nnh?.value ?? null,
      nnhCi95: c.nnh?.ci95 ?? null,
      direction: c.nnh?.direction ?? null,
      equivalent: c.notInterpretable ? null : (c.equivalence?.equivalent ?? null),
      verdict: c.verdict,
    })),
  );
}

function nnhMarkdown(rows: NnhRow[], reference: string): string[] {
  return [
    `Against ${md(reference)}: NNH = 1/|RD|, cases routed through the configuration per additional unsafe output (NNT when it helps).`,
    "",
    "| scope | configuration | RD [95% CI] | NNH [95% CI] | direction | TOST-equivalent | verdict |",
    "|---|---|---:|---:|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${md(r.scope)} | ${md(r.condition)} | ${pp(r.riskDifference)} ${bracket(r.rdCi95, (v) => pp(v))} | ${num(r.nnh, 1)} ${bracket(r.nnhCi95, (v) => num(v, 1))} | ${r.direction ?? "-"} | ${r.equivalent === null ? "-" : r.equivalent ? "yes" : "no"} | ${md(r.verdict)} |`,
    ),
  ];
}

registerAnalysis({
  name: "contrasts",
  plan: AnalysisPlanSchema.pick({ equivalence: true, multiplicity: true, bootstrap: true }),
  result: "contrasts",
  run: contrasts,
  summary: ({ analysis }) => summaryLines(analysis),
  card: [
    cardField({
      field: "nnh",
      title: "Number needed to harm",
      build: ({ analysis }) => nnhRows(analysis),
      markdown: (rows, header) => nnhMarkdown(rows, header.comparison.reference),
    }),
  ],
});
