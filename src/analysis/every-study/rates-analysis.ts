/** Rates per cell with Wilson CIs (ITT and PP), and the scorecard's safety-rate matrix. */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { Interval } from "../../stats/index.js";
import { ALL, type RateCell, rateCells } from "./rates.js";
import { type AnalysisContext, cardField, registerAnalysis, type StudyAnalysis } from "../core/registry.js";
import { defineTable, renderMarkdown, renderText, type ResultTable } from "../core/result-table.js";
import { bracket, capitalized, md, pct, rateNoun } from "../core/text.js";

declare module "../core/registry.js" {
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

/** A rate cell's ITT with its Wilson interval. */
function ittText(r: RateCell): string {
  return `${pct(r.itt?.rate)} ${bracket(r.itt?.ci95, (v) => pct(v))}`;
}

const RATE_COLUMNS = [
  { key: "n", header: "n", align: "right" as const, cell: (r: RateCell) => String(r.n) },
  { key: "itt", header: "ITT [95% Wilson]", unit: "%", align: "right" as const, cell: ittText },
  { key: "pp", header: "PP", unit: "%", align: "right" as const, cell: (r: RateCell) => pct(r.pp?.rate) },
  {
    key: "parse",
    header: "parse failures",
    unit: "%",
    align: "right" as const,
    cell: (r: RateCell) => pct(r.parseFailureRate),
  },
];

/** The pooled rate of each configuration (the --full summary). */
export const CONFIGURATION_RATES_TABLE = defineTable<RateCell>({
  name: "rates by configuration",
  columns: [{ key: "configuration", header: "configuration", cell: (r) => r.configuration }, ...RATE_COLUMNS],
});

/** Each model's rate per benchmark, for a study with one level (the overview). */
export const DESCRIBED_RATES_TABLE = defineTable<RateCell>({
  name: "rates of a study with one level",
  columns: [
    { key: "model", header: "model", cell: (r) => (r.model === ALL ? "all models" : r.model) },
    { key: "benchmark", header: "benchmark", cell: (r) => (r.benchmark === ALL ? "all benchmarks" : r.benchmark) },
    ...RATE_COLUMNS,
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const pooledCells = analysis.rates.filter((r) => r.model === ALL && r.benchmark === ALL);
  return [
    "rates by configuration (all models, all benchmarks)",
    ...renderText(CONFIGURATION_RATES_TABLE, pooledCells),
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
    ...renderText(DESCRIBED_RATES_TABLE, cells),
    "",
  ];
}

/** The matrix's cell of a benchmark and configuration, if the data has one. */
export function matrixCellAt(matrix: RateMatrix, benchmark: string, configuration: string): MatrixCell | undefined {
  return matrix.cells.find((x) => x.benchmark === benchmark && x.configuration === configuration);
}

/** The column key of a configuration in the matrix table. */
export function matrixColumnKey(configuration: string): string {
  return `configuration ${configuration}`;
}

/**
 * The safety-rate matrix: a row per benchmark, a column per configuration (the card file and the
 * report, where each rate links to its trials and carries its interval when the matrix is narrow).
 */
export function rateMatrixTable(matrix: RateMatrix, card: RateMatrices): ResultTable<string> {
  return defineTable<string>({
    name: `rate matrix of ${matrix.model}`,
    columns: [
      { key: "benchmark", header: "benchmark", cell: (b) => benchmarkRowLabel(b, card) },
      ...matrix.configurations.map((c) => ({
        key: matrixColumnKey(c),
        header: c,
        unit: "%",
        align: "right" as const,
        cell: (b: string) => {
          const cell = matrixCellAt(matrix, b, c);
          return cell ? `${pct(cell.rate)} (n=${cell.n})` : "-";
        },
      })),
    ],
  });
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
  return [`#### ${title}`, "", ...renderMarkdown(rateMatrixTable(matrix, card), matrix.benchmarks), ""];
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
