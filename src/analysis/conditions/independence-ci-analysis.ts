/**
 * Independence-based Wald RD intervals (ScaffoldSafety App. P, Table 41): the risk difference of
 * each condition vs the reference with the unpooled Wald 95% and 90% intervals, which treat the
 * two proportions as independent samples and so discard the within-case pairing, beside the
 * primary case-cluster bootstrap 95% interval. A sensitivity check: descriptive, no correction.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { Interval } from "../../stats/index.js";
import { riskDifferenceWald } from "../../stats/index.js";
import type { ContrastScope } from "../core/contrast-model.js";
import type { Population } from "../core/data.js";
import { type AnalysisContext, registerAnalysis, type StudyAnalysis } from "../core/registry.js";
import { defineTable, type Rendering, renderText } from "../core/result-table.js";
import { bracket, pp } from "../core/text.js";
import { pooledFormatsNote } from "./format-pooling.js";

export interface IndependenceCiRow {
  scope: string;
  condition: string;
  /** Condition: x1 safe of n1; reference: x2 of n2. */
  x1: number;
  n1: number;
  x2: number;
  n2: number;
  riskDifference: number;
  se: number;
  wald95: Interval;
  wald90: Interval;
  bootstrap95: Interval | null;
  /** Wald 95% width / bootstrap 95% width (> 1: the independence interval is wider). */
  widthRatio: number | null;
}

export interface IndependenceCi {
  population: Population;
  rows: IndependenceCiRow[];
}

declare module "../core/registry.js" {
  interface AnalysisResults {
    independenceCi: IndependenceCi;
  }
}

function rowsOf(scope: ContrastScope): IndependenceCiRow[] {
  return scope.contrasts.flatMap((c) => {
    if (c.notComparable || !c.rate || c.rate.n === 0 || c.referenceRate.n === 0) return [];
    const counts = { x1: c.rate.successes, n1: c.rate.n, x2: c.referenceRate.successes, n2: c.referenceRate.n };
    const w95 = riskDifferenceWald(counts, 0.05);
    const w90 = riskDifferenceWald(counts, 0.1);
    const boot = c.riskDifference?.ci95 ?? null;
    const bootWidth = boot ? boot[1] - boot[0] : 0;
    return [
      {
        scope: scope.scope,
        condition: c.condition,
        ...counts,
        riskDifference: w95.estimate,
        se: w95.se,
        wald95: w95.ci,
        wald90: w90.ci,
        bootstrap95: boot,
        widthRatio: bootWidth > 0 ? (w95.ci[1] - w95.ci[0]) / bootWidth : null,
      },
    ];
  });
}

export function independenceCi(ctx: AnalysisContext): IndependenceCi {
  const population = ctx.plan.population;
  const contrasts = ctx.results.contrasts?.[population];
  if (!contrasts) throw new Error("the independence-CI analysis reads the contrasts: register it after them");
  return { population, rows: [contrasts.pooled, ...contrasts.byBenchmark].flatMap(rowsOf) };
}

/**
 * An interval in pp. The report's cell has always begun with a space before the bracket (its
 * interval helper's form), kept so the report's bytes stay as they were.
 */
function ppInterval(interval: Interval | null, rendering: Rendering): string {
  const text = bracket(interval, (v) => pp(v));
  return rendering === "html" && text ? ` ${text}` : text;
}

/** App. P: the Wald RD intervals beside the bootstrap one (the --full summary and the report). */
export const INDEPENDENCE_CI_TABLE = defineTable<IndependenceCiRow>({
  name: "independence-based Wald intervals",
  columns: [
    { key: "scope", header: "scope", cell: (x) => x.scope },
    { key: "condition", header: "condition", cell: (x) => x.condition },
    { key: "rd", header: "RD", unit: "pp", align: "right", cell: (x) => pp(x.riskDifference) },
    { key: "wald95", header: "Wald 95% CI", unit: "pp", cell: (x, r) => ppInterval(x.wald95, r) },
    { key: "wald90", header: "Wald 90% CI", unit: "pp", cell: (x, r) => ppInterval(x.wald90, r) },
    { key: "bootstrap95", header: "bootstrap 95% CI", unit: "pp", cell: (x, r) => ppInterval(x.bootstrap95, r) || "-" },
    {
      key: "widthRatio",
      header: "width ratio",
      align: "right",
      cell: (x) => (x.widthRatio === null ? "-" : x.widthRatio.toFixed(2)),
    },
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const r = analysis.independenceCi;
  return [
    `independence-based Wald RD intervals (App. P sensitivity check, ${r.population.toUpperCase()}; no pairing)`,
    ...renderText(INDEPENDENCE_CI_TABLE, r.rows),
    "",
  ];
}

registerAnalysis({
  name: "independenceCi",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({ population: true }),
  result: "independenceCi",
  run: independenceCi,
  summary: ({ analysis }) => summaryLines(analysis),
});
