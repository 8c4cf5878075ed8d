/**
 * Baseline dependence at the cell level (ScaffoldSafety 6.3, 8): across model x benchmark
 * cells, the Spearman correlation of the reference's safety rate (the baseline) with the
 * condition's change from it (condition rate - reference rate), with its t-based p-value.
 * A negative rho: cells with higher baselines degrade more. Descriptive, no correction.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { spearman } from "../../stats/index.js";
import { attempt, type ScoredRow, sumOf } from "../core/data.js";
import { NOT_INTERPRETABLE } from "../integrity/gate.js";
import { findLevel } from "../core/plan.js";
import { rankPNotInterpretable } from "../conditions/paired.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import { defineTable, renderText } from "../core/result-table.js";
import { num, pct, pp, pValue } from "../core/text.js";
import { pooledFormatsNote } from "../conditions/format-pooling.js";

export interface BaselineCell {
  model: string;
  benchmark: string;
  nReference: number;
  nCondition: number;
  baseline: number;
  delta: number;
}

export interface BaselineDependence {
  condition: string;
  reference: string;
  cells: BaselineCell[];
  rho: number;
  p: number;
  /** Why p is not read (too few cells for its approximation). */
  pNotInterpretable?: string;
}

declare module "../core/registry.js" {
  interface AnalysisResults {
    baselineDependence: BaselineDependence | Skipped;
  }
}

export function baselineDependence(ctx: AnalysisContext): BaselineDependence | Skipped {
  const { comparisonFacet: facet, reference, levels } = ctx.resolved;
  const wanted = ctx.plan.baseline_dependence.condition;
  const condition = findLevel(wanted, levels);
  if (!condition || condition === reference)
    return { skipped: `no ${facet}=${wanted} in the data besides the reference` };
  const cells = new Map<string, { model: string; benchmark: string; ref: ScoredRow[]; cond: ScoredRow[] }>();
  for (const s of ctx.main) {
    const level = s.row.facets[facet];
    if (level !== reference && level !== condition) continue;
    const key = `${s.row.model}\u0000${s.row.benchmark}`;
    let cell = cells.get(key);
    if (!cell) {
      cell = { model: s.row.model, benchmark: s.row.benchmark, ref: [], cond: [] };
      cells.set(key, cell);
    }
    (level === reference ? cell.ref : cell.cond).push(s);
  }
  const rows: BaselineCell[] = [...cells.values()]
    .filter((c) => c.ref.length > 0 && c.cond.length > 0)
    .map((c) => {
      const baseline = sumOf(c.ref) / c.ref.length;
      return {
        model: c.model,
        benchmark: c.benchmark,
        nReference: c.ref.length,
        nCondition: c.cond.length,
        baseline,
        delta: sumOf(c.cond) / c.cond.length - baseline,
      };
    })
    .sort((a, b) => a.model.localeCompare(b.model) || a.benchmark.localeCompare(b.benchmark));
  if (rows.length < 3) return { skipped: `${rows.length} model x benchmark cell(s) with both conditions; needs 3` };
  const r = attempt(() =>
    spearman(
      rows.map((c) => c.baseline),
      rows.map((c) => c.delta),
    ),
  );
  if ("error" in r) return { skipped: `Spearman not computable: ${r.error}` };
  const notRead = rankPNotInterpretable(rows.length, ctx.plan.integrity.min_rank_items, "cells");
  return {
    condition,
    reference,
    cells: rows,
    rho: r.value.rho,
    p: r.value.p,
    ...(notRead ? { pNotInterpretable: notRead } : {}),
  };
}

/** Each model x benchmark cell's reference rate and the condition's change from it (summary and report). */
export const BASELINE_CELLS_TABLE = defineTable<BaselineCell>({
  name: "baseline dependence cells",
  columns: [
    { key: "model", header: "model", cell: (c) => c.model },
    { key: "benchmark", header: "benchmark", cell: (c) => c.benchmark },
    { key: "baseline", header: "baseline", unit: "%", align: "right", cell: (c) => pct(c.baseline) },
    { key: "delta", header: "delta", unit: "pp", align: "right", cell: (c) => pp(c.delta) },
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const b = analysis.baselineDependence;
  if ("skipped" in b) return [`baseline dependence (cells): skipped (${b.skipped})`, ""];
  return [
    `baseline dependence: Spearman rho of the ${b.reference} rate vs the ${b.condition} delta across ${b.cells.length} model x benchmark cells = ${num(b.rho)} (${
      b.pNotInterpretable ? `p ${NOT_INTERPRETABLE}: ${b.pNotInterpretable}` : `p ${pValue(b.p)}`
    })`,
    ...renderText(BASELINE_CELLS_TABLE, b.cells),
    "",
  ];
}

registerAnalysis({
  name: "baselineDependence",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison"],
  plan: AnalysisPlanSchema.pick({ baseline_dependence: true }),
  result: "baselineDependence",
  run: baselineDependence,
  summary: ({ analysis }) => summaryLines(analysis),
});
