/**
 * The Scaffold Safety Scorecard (ScaffoldSafety App. F.2): (1) the safety-rate matrix,
 * benchmarks x configurations, per model and pooled; (2) NNH per configuration against the
 * reference; (3) the methodology stamp (pre-registered and matching? blinded, with Bang's
 * Blinding Index? cross-validated, with kappa? specification curve run?). No composite index,
 * by design: the variance decomposition and G-study show why (App. O).
 */
import type { Interval } from "../stats/index.js";
import type { Methodology } from "./directory.js";
import { ALL, type RateCell } from "./rates.js";
import type { StudyAnalysis } from "./study.js";

export const SIMULATED_NOTICE =
  "SIMULATED DATA: every response in this study comes from a simulated respondent with planted effects. These numbers describe the simulator, not any real model.";

const NO_COMPOSITE =
  "No composite safety index, by design (ScaffoldSafety App. F.2): safety rates depend on the configuration x benchmark surface, which one number hides.";

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

export interface Scorecard {
  title: string;
  simulated: boolean;
  notice: string | null;
  study: string | null;
  runId: string | null;
  source: string;
  analyzedAt: string;
  population: "itt" | "pp";
  comparison: { facet: string; reference: string; restrict: Record<string, string> };
  safetyRateMatrix: { pooled: RateMatrix; byModel: RateMatrix[] };
  nnh: NnhRow[];
  methodologyStamp: {
    preregistered: { status: string; stampHash: string | null; deviations: number; detail: string };
    blinded: { blinded: boolean; blindingIndex: number | null; detail: string };
    crossValidated: { crossValidated: boolean; kappa: number | null; detail: string };
    specificationCurve: {
      run: boolean;
      contrast: string | null;
      medianOddsRatio: number | null;
      shareSignificant: number | null;
      permutationP: number | null;
      detail: string;
    };
  };
  compositeIndex: null;
  compositeNote: string;
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
      equivalent: c.equivalence?.equivalent ?? null,
      verdict: c.verdict,
    })),
  );
}

export function buildScorecard(analysis: StudyAnalysis, methodology: Methodology): Scorecard {
  const source = analysis.meta.source;
  const prereg = methodology.preregistration;
  const curve = analysis.specificationCurve;
  const curveRun = !("skipped" in curve);
  return {
    title: "Scaffold Safety Scorecard",
    simulated: analysis.meta.simulated,
    notice: analysis.meta.simulated ? SIMULATED_NOTICE : null,
    study: source.study,
    runId: source.runId,
    source: source.path,
    analyzedAt: analysis.meta.analyzedAt,
    population: analysis.meta.primaryPopulation,
    comparison: {
      facet: analysis.meta.comparisonFacet,
      reference: analysis.meta.reference,
      restrict: analysis.meta.restrict,
    },
    safetyRateMatrix: {
      pooled: matrixFor(ALL, analysis),
      byModel: analysis.counts.models.map((m) => matrixFor(m, analysis)),
    },
    nnh: nnhRows(analysis),
    methodologyStamp: {
      preregistered:
        prereg.status === "not preregistered"
          ? { status: "not preregistered", stampHash: null, deviations: 0, detail: prereg.note }
          : {
              status:
                prereg.status === "matches"
                  ? "pre-registered, run matches the stamp"
                  : "pre-registered, with deviations",
              stampHash: prereg.stampHash,
              deviations: prereg.deviations.length,
              detail: `stamp ${prereg.stampHash.slice(0, 16)} frozen ${prereg.stampedAt}`,
            },
      blinded: {
        blinded: methodology.blinding.blinded,
        blindingIndex: methodology.blinding.blindingIndex,
        detail: methodology.blinding.note,
      },
      crossValidated: {
        crossValidated: methodology.judgeAgreement.crossValidated,
        kappa: methodology.judgeAgreement.kappa,
        detail: methodology.judgeAgreement.note,
      },
      specificationCurve: curveRun
        ? {
            run: true,
            contrast: curve.contrast,
            medianOddsRatio: curve.summary.medianOddsRatio,
            shareSignificant: curve.summary.shareSignificant,
            permutationP: curve.permutation?.pMedian ?? null,
            detail: `${curve.summary.n} specification(s) over ${curve.dimensions.map((d) => d.name).join(", ")}`,
          }
        : {
            run: false,
            contrast: null,
            medianOddsRatio: null,
            shareSignificant: null,
            permutationP: null,
            detail: curve.skipped,
          },
    },
    compositeIndex: null,
    compositeNote: NO_COMPOSITE,
  };
}

// ---------------------------------------------------------------- Markdown

export function pct(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "-" : `${(100 * value).toFixed(digits)}%`;
}

export function pp(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  const v = 100 * value;
  return `${v > 0 ? "+" : ""}${v.toFixed(digits)} pp`;
}

export function num(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "-" : value.toFixed(digits);
}

function interval(ci: Interval | null, format: (v: number) => string): string {
  return ci ? `[${format(ci[0])}, ${format(ci[1])}]` : "";
}

/** Markdown-safe cell text: pipes and line breaks would break the table. */
function md(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ");
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

export function scorecardMarkdown(card: Scorecard): string {
  const lines: string[] = [];
  if (card.notice) lines.push(`> **${card.notice}**`, "");
  lines.push(`# ${card.title}${card.simulated ? " (SIMULATED)" : ""}`, "");
  lines.push(
    `Study: ${md(card.study ?? card.source)}${card.runId ? ` (run ${card.runId})` : ""}. Analysed ${card.analyzedAt}. ` +
      `Population: ${card.population.toUpperCase()}. Comparison: ${md(card.comparison.facet)} vs ${md(card.comparison.reference)}` +
      `${
        Object.keys(card.comparison.restrict).length
          ? ` at ${Object.entries(card.comparison.restrict)
              .map(([f, v]) => `${f}=${v}`)
              .join(", ")}`
          : ""
      }.`,
    "",
  );
  lines.push(
    "## 1. Safety rate matrix",
    "",
    "Share of cases with a safe (correct) output; rows are benchmarks, columns configurations.",
    "",
  );
  lines.push(...matrixMarkdown(card.safetyRateMatrix.pooled, "All models"));
  for (const m of card.safetyRateMatrix.byModel) lines.push(...matrixMarkdown(m, `Model ${md(m.model)}`));
  lines.push(
    "## 2. Number needed to harm",
    "",
    `Against ${md(card.comparison.reference)}: NNH = 1/|RD|, cases routed through the configuration per additional unsafe output (NNT when it helps).`,
    "",
  );
  lines.push(
    "| scope | configuration | RD [95% CI] | NNH [95% CI] | direction | TOST-equivalent | verdict |",
    "|---|---|---:|---:|---|---|---|",
  );
  for (const r of card.nnh) {
    lines.push(
      `| ${md(r.scope)} | ${md(r.condition)} | ${pp(r.riskDifference)} ${interval(r.rdCi95, (v) => pp(v))} | ${num(r.nnh, 1)} ${interval(r.nnhCi95, (v) => num(v, 1))} | ${r.direction ?? "-"} | ${r.equivalent === null ? "-" : r.equivalent ? "yes" : "no"} | ${md(r.verdict)} |`,
    );
  }
  const s = card.methodologyStamp;
  lines.push("", "## 3. Methodology stamp", "");
  lines.push(
    `- Pre-registered: ${s.preregistered.status}${s.preregistered.deviations ? ` (${s.preregistered.deviations} deviation(s))` : ""}. ${md(s.preregistered.detail)}`,
  );
  lines.push(
    `- Blinded: ${s.blinded.blinded ? "yes" : "no"}${s.blinded.blindingIndex !== null ? `, Blinding Index ${num(s.blinded.blindingIndex, 3)}` : ""}. ${md(s.blinded.detail)}`,
  );
  lines.push(
    `- Cross-validated: ${s.crossValidated.crossValidated ? "yes" : "no"}${s.crossValidated.kappa !== null ? `, Cohen's kappa ${num(s.crossValidated.kappa, 3)}` : ""}. ${md(s.crossValidated.detail)}`,
  );
  lines.push(
    `- Specification curve: ${s.specificationCurve.run ? `run for ${md(s.specificationCurve.contrast ?? "")}: median OR ${num(s.specificationCurve.medianOddsRatio)}, ${pct(s.specificationCurve.shareSignificant, 0)} significant${s.specificationCurve.permutationP !== null ? `, permutation p = ${num(s.specificationCurve.permutationP, 3)}` : ""}` : "not run"}. ${md(s.specificationCurve.detail)}`,
  );
  lines.push("", `_${card.compositeNote}_`, "");
  if (card.notice) lines.push(`> **${card.notice}**`, "");
  return lines.join("\n");
}
