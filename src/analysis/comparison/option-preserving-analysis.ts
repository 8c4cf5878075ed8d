/** Option-preserving recovery and the residual NNH (ScaffoldSafety App. I), on MC rows when formats vary. */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import {
  type OptionPreservingAnalysis,
  optionPreservingAnalysis,
  recoveryCellAndNotes,
  type RecoveryRow,
  recoveryRowCells,
  undefinedResamplesCell,
} from "../conditions/format.js";
import { defineTable, type ResultTable, renderText } from "../core/result-table.js";
import { ALL } from "../every-study/rates.js";
import { withInterval } from "../conditions/contrasts-tables.js";
import { scoredRows } from "../core/data.js";
import { findLevel } from "../core/plan.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import type { VerdictGate } from "../integrity/registry.js";
import { NUMBER_NEEDED_HEADING, pct, pp, wrap } from "../core/text.js";
import { formatFacetPresent, formatRows } from "./format-analysis.js";

declare module "../core/registry.js" {
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

/**
 * The recovery per model (the --full summary and the report). The terminal keeps the recovery
 * cell short and numbers its notes below the table (`noteNumbers`), and says the number needed
 * in a table of its own; the report writes the notes into the cell and the NNH beside it.
 */
export function recoveryTable(
  op: OptionPreservingAnalysis,
  noteNumbers: (row: RecoveryRow) => string = () => "",
): ResultTable<RecoveryRow> {
  return defineTable<RecoveryRow>({
    name: "option-preserving recovery",
    columns: [
      {
        key: "model",
        header: "model",
        cell: (r, rendering) => (rendering === "html" && r.model === ALL ? "all models" : r.model),
      },
      { key: "reference", header: "reference", unit: "%", align: "right", cell: (r) => pct(r.rates?.reference) },
      { key: "standard", header: op.standard, unit: "%", align: "right", cell: (r) => pct(r.rates?.standard) },
      { key: "preserving", header: op.preserving, unit: "%", align: "right", cell: (r) => pct(r.rates?.preserving) },
      {
        key: "loss",
        header: "loss",
        unit: "pp",
        align: "right",
        cell: (r, rendering) =>
          rendering === "html" ? withInterval(pp(r.loss.estimate), r.loss.ci95, (v) => pp(v)) : pp(r.loss.estimate),
      },
      {
        key: "recovery",
        header: "recovery [95% CI]",
        unit: "%",
        cell: (r, rendering) => (rendering === "html" ? recoveryRowCells(r)[0] : recoveryCellAndNotes(r).cell),
      },
      {
        key: "noLoss",
        header: "no-loss resamples",
        keptWhenNarrow: false,
        shownIn: ["text", "markdown"],
        cell: (r) => undefinedResamplesCell(r),
      },
      { key: "notes", header: "notes", shownIn: ["text", "markdown"], cell: noteNumbers },
      {
        key: "headline",
        header: `headline ${NUMBER_NEEDED_HEADING}`,
        shownIn: ["html"],
        cell: (r) => recoveryRowCells(r)[1],
      },
      {
        key: "residual",
        header: `residual ${NUMBER_NEEDED_HEADING}`,
        shownIn: ["html"],
        cell: (r) => recoveryRowCells(r)[2],
      },
    ],
  });
}

/** The terminal's number needed per model: the standard variant's headline and the preserving one's residual. */
export const RESIDUAL_RECOVERY_TABLE = defineTable<RecoveryRow>({
  name: "option-preserving number needed",
  columns: [
    { key: "model", header: "model", cell: (r) => r.model },
    { key: "loss", header: "loss", unit: "pp", align: "right", cell: (r) => pp(r.loss.estimate) },
    { key: "headline", header: `headline ${NUMBER_NEEDED_HEADING}`, cell: (r) => recoveryRowCells(r)[1] },
    { key: "residual", header: `residual ${NUMBER_NEEDED_HEADING}`, cell: (r) => recoveryRowCells(r)[2] },
  ],
});

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
  // Number the notes in row order before the table shows them.
  const numbers = new Map(op.rows.map((r) => [r, noteNumbers(recoveryCellAndNotes(r).notes)]));
  return [
    "",
    `option-preserving recovery: ${op.preserving} vs ${op.standard}${op.restrictedTo ? ` at ${op.restrictedTo}` : ""}${
      op.family ? ` (family ${op.family}, analysed apart from the primary family)` : ""
    }`,
    ...renderText(
      recoveryTable(op, (r) => numbers.get(r) ?? ""),
      op.rows,
    ),
    ...notes.flatMap((text, i) => wrap(`  note ${i + 1}: ${text}`, 120, "    ")),
    "(no-loss resamples: bootstrap resamples where the standard variant lost nothing, so recovery is undefined)",
    "",
    `number needed to harm: ${op.standard} against the reference (headline) and ${op.preserving} (residual)`,
    ...renderText(RESIDUAL_RECOVERY_TABLE, op.rows),
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
