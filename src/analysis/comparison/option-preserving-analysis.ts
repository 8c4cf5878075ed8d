/** Option-preserving recovery and the residual NNH (ScaffoldSafety App. I), on MC rows when formats vary. */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type OptionPreservingAnalysis, optionPreservingAnalysis, recoveryRowCells } from "./format.js";
import { findLevel } from "../plan.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../registry.js";
import { NUMBER_NEEDED_HEADING, pct, pp, textTable } from "../text.js";
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
  if (!levels.includes(op.standard) || !levels.includes(op.preserving))
    return { skipped: `needs both ${facet}=${op.standard} and ${facet}=${op.preserving}` };
  const plan = { ...ctx.plan, option_preserving: { ...ctx.plan.option_preserving, ...op } };
  return optionPreservingAnalysis(formatRows(ctx), facet, reference, plan, formatFacetPresent(ctx));
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const op = analysis.optionPreserving;
  if ("skipped" in op) return ["", `option-preserving recovery: skipped (${op.skipped})`, ""];
  return [
    "",
    `option-preserving recovery: ${op.preserving} vs ${op.standard}${op.restrictedTo ? ` at ${op.restrictedTo}` : ""}`,
    ...textTable(
      [
        "model",
        "reference",
        op.standard,
        op.preserving,
        "loss",
        "recovery [95% CI]",
        `headline ${NUMBER_NEEDED_HEADING}`,
        `residual ${NUMBER_NEEDED_HEADING}`,
      ],
      op.rows.map((r) => [
        r.model,
        pct(r.rates?.reference),
        pct(r.rates?.standard),
        pct(r.rates?.preserving),
        pp(r.loss.estimate),
        ...recoveryRowCells(r),
      ]),
    ),
    "",
  ];
}

registerAnalysis({
  name: "optionPreserving",
  kinds: ["comparison"],
  plan: AnalysisPlanSchema.pick({ option_preserving: true, format: true, population: true, bootstrap: true }),
  result: "optionPreserving",
  run: optionPreserving,
  summary: ({ analysis }) => summaryLines(analysis),
});
