/** Option-preserving recovery and the residual NNH (ScaffoldSafety App. I), on MC rows when formats vary. */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import {
  type OptionPreservingAnalysis,
  optionPreservingAnalysis,
  recoveryCellAndNotes,
  recoveryRowCells,
  undefinedResamplesCell,
} from "./format.js";
import { scoredRows } from "../data.js";
import { findLevel } from "../plan.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../registry.js";
import type { VerdictGate } from "../integrity/registry.js";
import { NUMBER_NEEDED_HEADING, pct, pp, textTable, wrap } from "../text.js";
import { formatFacetPresent, formatRows } from "./format-analysis.js";

declare module "../registry.js" {
  interface AnalysisResults {
    optionPreserving: OptionPreservingAnalysis | Skipped;
  }
}

function optionPreserving(ctx: AnalysisContext): OptionPreservingAnalysis | Skipped {
  const { comparisonFacet: facet, reference, levels } = ctx.resolved;
  const { standard, preserving } = ctx.plan.option_preserving;
  // Variant names may be short names of parameterised levels ("react" for "react(max_iterations=5)").
  const op = {
    standard: findLevel(standard, levels) ?? standard,
    preserving: findLevel(preserving, levels) ?? preserving,
  };
  if (!levels.includes(op.standard) || !levels.includes(op.preserving)) {
    const family = ctx.otherFamilies && familyWithVariants(ctx, ctx.otherFamilies, reference, { standard, preserving });
    if (family) return family;
    return { skipped: `needs both ${facet}=${op.standard} and ${facet}=${op.preserving}` };
  }
  const plan = { ...ctx.plan, option_preserving: { ...ctx.plan.option_preserving, ...op } };
  return optionPreservingAnalysis(
    formatRows(ctx),
    { comparisonFacet: facet, reference, plan },
    formatFacetPresent(ctx),
  );
}

/** With study families, the variants may be another family's (ScaffoldSafety's option-preserving study). */
function familyWithVariants(
  ctx: AnalysisContext,
  families: NonNullable<AnalysisContext["otherFamilies"]>,
  reference: string,
  { standard, preserving }: { standard: string; preserving: string },
): OptionPreservingAnalysis | undefined {
  const facet = ctx.resolved.comparisonFacet;
  for (const family of families) {
    const present = [...new Set(family.rows.map((r) => r.facets[facet]))];
    const variants = { standard: findLevel(standard, present), preserving: findLevel(preserving, present) };
    if (!present.includes(reference) || !variants.standard || !variants.preserving) continue;
    const kept = [reference, variants.standard, variants.preserving];
    const rows = scoredRows(
      family.rows.filter((r) => kept.includes(r.facets[facet])),
      ctx.plan.population,
    );
    const { facet: formatFacet, mc, oe } = ctx.plan.format;
    const formats = new Set(rows.map((s) => s.row.facets[formatFacet]));
    const plan = {
      ...ctx.plan,
      option_preserving: {
        ...ctx.plan.option_preserving,
        standard: variants.standard,
        preserving: variants.preserving,
      },
    };
    return {
      ...optionPreservingAnalysis(
        rows,
        { comparisonFacet: facet, reference, plan },
        formats.has(mc) && formats.has(oe),
      ),
      family: family.name,
    };
  }
  return undefined;
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const op = analysis.optionPreserving;
  if ("skipped" in op) return ["", `option-preserving recovery: skipped (${op.skipped})`, ""];
  // Each distinct note is numbered once below the table, so that the table fits a terminal.
  const notes: string[] = [];
  const noteNumbers = (texts: string[]) =>
    texts
      .map((text) => {
        if (!notes.includes(text)) notes.push(text);
        return String(notes.indexOf(text) + 1);
      })
      .join(", ") || "-";
  const recoveries = op.rows.map((r) => {
    const { cell, notes: rowNotes } = recoveryCellAndNotes(r);
    return [
      r.model,
      pct(r.rates?.reference),
      pct(r.rates?.standard),
      pct(r.rates?.preserving),
      pp(r.loss.estimate),
      cell,
      undefinedResamplesCell(r),
      noteNumbers(rowNotes),
    ];
  });
  return [
    "",
    `option-preserving recovery: ${op.preserving} vs ${op.standard}${op.restrictedTo ? ` at ${op.restrictedTo}` : ""}${
      op.family ? ` (family ${op.family}, analysed apart from the primary family)` : ""
    }`,
    ...textTable(
      ["model", "reference", op.standard, op.preserving, "loss", "recovery [95% CI]", "no-loss resamples", "notes"],
      recoveries,
    ),
    ...notes.flatMap((text, i) => wrap(`  note ${i + 1}: ${text}`, 120, "    ")),
    "(no-loss resamples: bootstrap resamples where the standard variant lost nothing, so recovery is undefined)",
    "",
    `number needed to harm: ${op.standard} against the reference (headline) and ${op.preserving} (residual)`,
    ...textTable(
      ["model", "loss", `headline ${NUMBER_NEEDED_HEADING}`, `residual ${NUMBER_NEEDED_HEADING}`],
      op.rows.map((r) => {
        const [, headline, residual] = recoveryRowCells(r);
        return [r.model, pp(r.loss.estimate), headline, residual];
      }),
    ),
    "",
  ];
}

/** Recovery per model reads the reference, standard and preserving cells of every benchmark. */
function gateRecovery(op: OptionPreservingAnalysis | Skipped, gate: VerdictGate): void {
  if ("skipped" in op) return;
  const failure = gate.cellFailure(null, [gate.reference, op.standard, op.preserving]);
  if (!failure) return;
  for (const row of op.rows) {
    row.notInterpretable = failure.reason;
    gate.downgraded(failure, `recovery ${row.model}`);
  }
}

registerAnalysis({
  name: "optionPreserving",
  kinds: ["comparison"],
  plan: AnalysisPlanSchema.pick({ option_preserving: true, format: true, population: true, bootstrap: true }),
  result: "optionPreserving",
  run: optionPreserving,
  gate: gateRecovery,
  summary: ({ analysis }) => summaryLines(analysis),
});
