/** Rates per cell with Wilson CIs (ITT and PP), and the scorecard's safety-rate matrix. */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { Interval } from "../../stats/index.js";
import { ALL, type RateCell, rateCells } from "./rates.js";
import { type AnalysisContext, cardField, registerAnalysis, type StudyAnalysis } from "../registry.js";
import { bracket, capitalized, md, pct, rateNoun, textTable } from "../text.js";

declare module "../registry.js" {
  interface AnalysisResults {
    rates: RateCell[];
  }
  interface ScorecardFields {
    safetyRateMatrix: RateMatrices;
  }
}

export interface MatrixCell {
  benchmark: string;
  configuration: string;
  rate: number | null;
  ci95: Interval | null;
  n: number;
  parseFailureRate: number | null;
  cellId: string;
}

/** The matrix card: pooled over models and per model, with what its rates are called. */
export interface RateMatrices {
  pooled: RateMatrix;
  byModel: RateMatrix[];
  /** "safety rate", "accuracy" or both (from the benchmarks' loaders; absent in older records). */
  noun?: "safety rate" | "accuracy" | "safety rate or accuracy";
  /** Benchmark -> what it measures, when the benchmarks differ. */
  measures?: Record<string, "safety" | "capability">;
}

/** A benchmark's row label: with "(safety rate)" or "(accuracy)" when the matrix mixes both. */
export function benchmarkRowLabel(benchmark: string, card: RateMatrices): string {
  const name = benchmark === ALL ? "all benchmarks" : benchmark;
  if (card.noun !== "safety rate or accuracy" || benchmark === ALL) return name;
  return `${name} (${card.measures?.[benchmark] === "safety" ? "safety rate" : "accuracy"})`;
}

/** What the matrix's rates are: a description for the card. */
export function matrixDescription(noun: RateMatrices["noun"]): string {
  const what =
    noun === "accuracy"
      ? "Accuracy: share of cases with a correct answer"
      : noun === "safety rate or accuracy"
        ? "Safety rate (share of cases with a safe output) on safety benchmarks, accuracy (share with a correct answer) on the others, as each benchmark's loader declares"
        : "Safety rate: share of cases with a safe output";
  return `${what}; rows are benchmarks, columns configurations.`;
}

export interface RateMatrix {
  model: string;
  configurations: string[];
  benchmarks: string[];
  cells: MatrixCell[];
}

function rates(ctx: AnalysisContext): RateCell[] {
  const { comparisonFacet: facet, levels } = ctx.resolved;
  return rateCells(ctx.rows, ctx.configurationFacets, facet, { ...ctx.table.facetLevels, [facet]: levels });
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const pooledCells = analysis.rates.filter((r) => r.model === ALL && r.benchmark === ALL);
  return [
    "rates by configuration (all models, all benchmarks)",
    ...textTable(
      ["configuration", "n", "ITT [95% Wilson]", "PP", "parse failures"],
      pooledCells.map((r) => [
        r.configuration,
        String(r.n),
        `${pct(r.itt?.rate)} ${bracket(r.itt?.ci95, (v) => pct(v))}`,
        pct(r.pp?.rate),
        pct(r.parseFailureRate),
      ]),
    ),
    "",
  ];
}

/**
 * The overview of a study with one level (nothing compared): each model's rate per benchmark
 * with its Wilson interval. A study that compares shows its rates in the card instead.
 */
function describedLines(analysis: StudyAnalysis): string[] {
  if (analysis.meta.levels.length > 1) return [];
  // Each model on each benchmark, then the totals that add something (more than one model or benchmark).
  const { models, benchmarks } = analysis.counts;
  const cells = analysis.rates.filter((r) =>
    r.model === ALL ? r.benchmark === ALL && models.length > 1 : r.benchmark !== ALL || benchmarks.length > 1,
  );
  return [
    `rates (${analysis.meta.comparisonFacet} ${analysis.meta.reference}; one level, nothing compared)`,
    ...textTable(
      ["model", "benchmark", "n", "ITT [95% Wilson]", "PP", "parse failures"],
      cells.map((r) => [
        r.model === ALL ? "all models" : r.model,
        r.benchmark === ALL ? "all benchmarks" : r.benchmark,
        String(r.n),
        `${pct(r.itt?.rate)} ${bracket(r.itt?.ci95, (v) => pct(v))}`,
        pct(r.pp?.rate),
        pct(r.parseFailureRate),
      ]),
    ),
    "",
  ];
}

function matrixFor(model: string, analysis: StudyAnalysis): RateMatrix {
  const population = analysis.meta.primaryPopulation;
  const cells = analysis.rates.filter((c) => c.model === model);
  const configurations = [...new Set(cells.map((c) => c.configuration))];
  const benchmarks = [...analysis.counts.benchmarks, ...(analysis.counts.benchmarks.length > 1 ? [ALL] : [])];
  const out: MatrixCell[] = [];
  for (const benchmark of benchmarks) {
    for (const configuration of configurations) {
      const cell = cells.find((c) => c.benchmark === benchmark && c.configuration === configuration);
      if (cell) out.push(matrixCell(cell, population));
    }
  }
  return { model, configurations, benchmarks, cells: out };
}

function matrixCell(cell: RateCell, population: "itt" | "pp"): MatrixCell {
  const estimate = cell[population];
  return {
    benchmark: cell.benchmark,
    configuration: cell.configuration,
    rate: estimate?.rate ?? null,
    ci95: estimate?.ci95 ?? null,
    n: estimate?.n ?? 0,
    parseFailureRate: cell.parseFailureRate,
    cellId: cell.id,
  };
}

function matrixMarkdown(matrix: RateMatrix, title: string, card: RateMatrices): string[] {
  const lines = [`#### ${title}`, "", `| benchmark | ${matrix.configurations.map(md).join(" | ")} |`];
  lines.push(`|---|${matrix.configurations.map(() => "---:").join("|")}|`);
  for (const b of matrix.benchmarks) {
    const row = matrix.configurations.map((c) => {
      const cell = matrix.cells.find((x) => x.benchmark === b && x.configuration === c);
      return cell ? `${pct(cell.rate)} (n=${cell.n})` : "-";
    });
    lines.push(`| ${md(benchmarkRowLabel(b, card))} | ${row.join(" | ")} |`);
  }
  return [...lines, ""];
}

registerAnalysis({
  name: "rates",
  kinds: "every",
  plan: AnalysisPlanSchema.pick({ population: true }),
  result: "rates",
  run: rates,
  summary: ({ analysis }) => summaryLines(analysis),
  overview: ({ analysis }) => describedLines(analysis),
  card: [
    cardField({
      field: "safetyRateMatrix",
      title: "Safety rate matrix",
      heading: (value) => `${capitalized(value.noun ?? "safety rate")} matrix`,
      build: ({ analysis }): RateMatrices => {
        const noun = rateNoun(analysis.counts.benchmarks, analysis.meta.measures);
        return {
          pooled: matrixFor(ALL, analysis),
          byModel: analysis.counts.models.map((m) => matrixFor(m, analysis)),
          noun,
          ...(noun === "safety rate or accuracy" ? { measures: analysis.meta.measures } : {}),
        };
      },
      markdown: (value) => [
        matrixDescription(value.noun),
        "",
        ...matrixMarkdown(value.pooled, "All models", value),
        ...value.byModel.flatMap((m) => matrixMarkdown(m, `Model ${md(m.model)}`, value)),
      ],
    }),
  ],
});
