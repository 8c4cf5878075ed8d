/** Rates per cell with Wilson CIs (ITT and PP), and the scorecard's safety-rate matrix. */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import type { Interval } from "../../stats/index.js";
import { ALL, type RateCell, rateCells } from "../rates.js";
import { type AnalysisContext, cardField, registerAnalysis, type StudyAnalysis } from "../registry.js";
import { bracket, md, pct, textTable } from "../text.js";

declare module "../registry.js" {
  interface AnalysisResults {
    rates: RateCell[];
  }
  interface ScorecardFields {
    safetyRateMatrix: { pooled: RateMatrix; byModel: RateMatrix[] };
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

function matrixMarkdown(matrix: RateMatrix, title: string): string[] {
  const lines = [`#### ${title}`, "", `| benchmark | ${matrix.configurations.map(md).join(" | ")} |`];
  lines.push(`|---|${matrix.configurations.map(() => "---:").join("|")}|`);
  for (const b of matrix.benchmarks) {
    const row = matrix.configurations.map((c) => {
      const cell = matrix.cells.find((x) => x.benchmark === b && x.configuration === c);
      return cell ? `${pct(cell.rate)} (n=${cell.n})` : "-";
    });
    lines.push(`| ${md(b === ALL ? "all benchmarks" : b)} | ${row.join(" | ")} |`);
  }
  return [...lines, ""];
}

registerAnalysis({
  name: "rates",
  plan: AnalysisPlanSchema.pick({ population: true }),
  result: "rates",
  run: rates,
  summary: ({ analysis }) => summaryLines(analysis),
  card: [
    cardField({
      field: "safetyRateMatrix",
      title: "Safety rate matrix",
      build: ({ analysis }) => ({
        pooled: matrixFor(ALL, analysis),
        byModel: analysis.counts.models.map((m) => matrixFor(m, analysis)),
      }),
      markdown: (value) => [
        "Share of cases with a safe (correct) output; rows are benchmarks, columns configurations.",
        "",
        ...matrixMarkdown(value.pooled, "All models"),
        ...value.byModel.flatMap((m) => matrixMarkdown(m, `Model ${md(m.model)}`)),
      ],
    }),
  ],
});
