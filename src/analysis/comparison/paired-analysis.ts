/** Paired flips (McNemar) and degradation by item difficulty, against the reference (ScaffoldSafety 5.3). */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type DifficultyResult, difficultyAnalysis, type FlipResult, flipAnalysis } from "./paired.js";
import { type AnalysisContext, registerAnalysis, type StudyAnalysis } from "../registry.js";
import { NOT_INTERPRETABLE } from "../integrity/gate.js";
import type { VerdictGate } from "../integrity/registry.js";
import { num, pct, pp, pValue, textTable } from "../text.js";
import { pooledFormatsNote } from "./format-pooling.js";

declare module "../registry.js" {
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

function summaryLines(analysis: StudyAnalysis): string[] {
  const out = [`paired flips vs ${analysis.meta.reference} (McNemar exact)`];
  out.push(
    ...textTable(
      ["benchmark", "condition", "pairs", "churn", "net", "lost/gained", "p"],
      analysis.paired.flips.map((f) => [
        f.benchmark,
        f.condition,
        String(f.pairs),
        pct(f.flips?.churn),
        pp(f.flips?.net),
        f.mcnemar && "b" in f.mcnemar ? `${f.mcnemar.b}/${f.mcnemar.c}` : "-",
        f.notInterpretable
          ? `not interpretable: ${f.notInterpretable}`
          : f.mcnemar && "exact" in f.mcnemar
            ? pValue(f.mcnemar.exact.p)
            : "-",
      ]),
    ),
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
