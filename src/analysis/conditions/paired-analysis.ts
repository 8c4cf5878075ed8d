/** Paired flips (McNemar) and degradation by item difficulty, against the reference (ScaffoldSafety 5.3). */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type DifficultyResult, difficultyAnalysis, type FlipResult, flipAnalysis } from "./paired.js";
import { type AnalysisContext, registerAnalysis, type StudyAnalysis } from "../core/registry.js";
import { NOT_INTERPRETABLE } from "../integrity/gate.js";
import type { VerdictGate } from "../integrity/registry.js";
import { defineTable, renderText } from "../core/result-table.js";
import { num, pct, pp, pValue } from "../core/text.js";
import { pooledFormatsNote } from "./format-pooling.js";

declare module "../core/registry.js" {
  interface AnalysisResults {
    paired: { flips: FlipResult[]; difficulty: DifficultyResult[] };
  }
}

function paired(ctx: AnalysisContext): { flips: FlipResult[]; difficulty: DifficultyResult[] } {
  const { comparisonFacet: facet, reference, levels } = ctx.resolved;
  return {
    flips: flipAnalysis(ctx.main, { facet, reference, levels }, ctx.table.facets),
    difficulty: difficultyAnalysis(ctx.main, { facet, reference, levels }, ctx.plan.integrity.min_rank_items),
  };
}

/** The reference's accuracy bands of the difficulty table, in the order of `DifficultyResult.bands`. */
const DIFFICULTY_BANDS = ["≥80%", "20–80%", "<20%"];

/** Paired flips against the reference per benchmark (the --full summary and the report). */
export const FLIPS_TABLE = defineTable<FlipResult>({
  name: "paired flips",
  columns: [
    { key: "benchmark", header: "benchmark", cell: (f) => f.benchmark },
    { key: "condition", header: "condition", cell: (f) => f.condition },
    { key: "pairs", header: "pairs", align: "right", cell: (f) => String(f.pairs) },
    { key: "churn", header: "churn", unit: "%", align: "right", cell: (f) => pct(f.flips?.churn) },
    { key: "net", header: "net", unit: "pp", align: "right", cell: (f) => pp(f.flips?.net) },
    {
      key: "lostGained",
      // The report spaces the slash; the terminal keeps the column narrow.
      header: { text: "lost/gained", html: "lost / gained" },
      align: "right",
      cell: (f, rendering) => {
        if (!(f.mcnemar && "b" in f.mcnemar)) return "-";
        return rendering === "html" ? `${f.mcnemar.b} / ${f.mcnemar.c}` : `${f.mcnemar.b}/${f.mcnemar.c}`;
      },
    },
    {
      key: "p",
      header: { text: "p", html: "McNemar exact p" },
      align: "right",
      cell: (f) =>
        f.notInterpretable
          ? `not interpretable: ${f.notInterpretable}`
          : f.mcnemar && "exact" in f.mcnemar
            ? pValue(f.mcnemar.exact.p)
            : "-",
    },
  ],
});

/** The change by item difficulty per condition (the report; the terminal says it in a line per condition). */
export const DIFFICULTY_TABLE = defineTable<DifficultyResult>({
  name: "degradation by item difficulty",
  columns: [
    { key: "condition", header: "condition", cell: (d) => d.condition },
    { key: "items", header: "items", align: "right", cell: (d) => String(d.items) },
    {
      key: "rho",
      header: "Spearman rho (difficulty, change)",
      align: "right",
      cell: (d) => ("rho" in d.spearman ? num(d.spearman.rho) : d.spearman.error),
    },
    {
      key: "p",
      header: "p",
      align: "right",
      cell: (d) =>
        d.pNotInterpretable
          ? `not interpretable: ${d.pNotInterpretable}`
          : "p" in d.spearman
            ? pValue(d.spearman.p)
            : "-",
    },
    ...DIFFICULTY_BANDS.map((band, i) => ({
      key: `band ${i}`,
      header: `change, reference accuracy ${band}`,
      unit: "pp",
      align: "right" as const,
      cell: (d: DifficultyResult) => {
        const b = d.bands[i];
        return b ? `${pp(b.meanChange)} (${b.items})` : "";
      },
    })),
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const out = [`paired flips vs ${analysis.meta.reference} (McNemar exact)`];
  out.push(
    ...renderText(FLIPS_TABLE, analysis.paired.flips),
    "",
    "degradation by item difficulty (difficulty = the reference's item error rate)",
  );
  for (const d of analysis.paired.difficulty) {
    const s =
      "rho" in d.spearman
        ? d.pNotInterpretable
          ? `Spearman rho ${num(d.spearman.rho)} (${d.items} items; p ${NOT_INTERPRETABLE}: ${d.pNotInterpretable})`
          : `Spearman rho ${num(d.spearman.rho)} (p ${pValue(d.spearman.p)}, ${d.items} items)`
        : d.spearman.error;
    out.push(`  ${d.condition}: ${s}; ${d.bands.map((b) => `${b.band}: ${pp(b.meanChange)} (${b.items})`).join("; ")}`);
  }
  return [...out, ""];
}

/** Paired flips (McNemar): a benchmark's or all benchmarks' pairs of the condition and the reference. */
function gateFlips(result: { flips: FlipResult[] }, gate: VerdictGate): void {
  for (const flip of result.flips) {
    const benchmark = flip.benchmark === "all" ? null : flip.benchmark;
    const failure = gate.cellFailure(benchmark, [flip.condition, gate.reference]);
    if (!failure) continue;
    flip.notInterpretable = failure.reason;
    gate.downgraded(failure, `flips ${flip.benchmark} ${flip.condition}`);
  }
}

registerAnalysis({
  name: "paired",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({ population: true }),
  result: "paired",
  run: paired,
  gate: gateFlips,
  summary: ({ analysis }) => summaryLines(analysis),
});
