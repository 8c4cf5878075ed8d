/** Format dependence: OE minus MC at the reference, and the condition x format 2x2 (ScaffoldSafety 5.2). */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type ScoredRow, scoredRows } from "../core/data.js";
import {
  type FormatAnalysis,
  type FormatGap,
  formatAnalysis,
  formatComparisonNotes,
  tostMark,
  type WithinFormatContrast,
} from "../conditions/format.js";
import { findLevel, restrictRows } from "../core/plan.js";
import { type AnalysisContext, registerAnalysis, type Skipped, type StudyAnalysis } from "../core/registry.js";
import type { VerdictGate } from "../integrity/registry.js";
import type { Interval } from "../../stats/index.js";
import { defineTable, type Rendering, type ResultTable, renderText } from "../core/result-table.js";
import { bracket, pct, pp } from "../core/text.js";
import { withInterval } from "../conditions/contrasts-tables.js";

declare module "../core/registry.js" {
  interface AnalysisResults {
    format: FormatAnalysis | Skipped;
  }
}

/** The format facet exists apart from the comparison facet and shows both the MC and the OE level. */
export function formatFacetPresent(ctx: AnalysisContext): boolean {
  const { facet, mc, oe } = ctx.plan.format;
  if (!ctx.table.facets.includes(facet) || facet === ctx.resolved.comparisonFacet) return false;
  const all = restrictRows(ctx.table.rows, restrictionWithout(ctx, facet));
  const values = new Set((all.length ? all : ctx.rows).map((r) => r.facets[facet]));
  return values.has(mc) && values.has(oe);
}

/** The primary population's rows under every format: the reference's restriction minus the format. */
export function formatRows(ctx: AnalysisContext): readonly ScoredRow[] {
  const { comparisonFacet, levels } = ctx.resolved;
  return scoredRows(
    restrictRows(ctx.table.rows, restrictionWithout(ctx, ctx.plan.format.facet)).filter((r) =>
      levels.includes(r.facets[comparisonFacet]),
    ),
    ctx.plan.population,
  );
}

function restrictionWithout(ctx: AnalysisContext, facet: string): Record<string, string> {
  return Object.fromEntries(Object.entries(ctx.resolved.restrict).filter(([f]) => f !== facet));
}

function format(ctx: AnalysisContext): FormatAnalysis | Skipped {
  const { facet, mc, oe } = ctx.plan.format;
  if (!formatFacetPresent(ctx)) return { skipped: `no '${facet}' facet with both ${mc} and ${oe}` };
  const { comparisonFacet, reference, levels } = ctx.resolved;
  const rows = formatRows(ctx);
  // Every trial errored (or none scored): nothing to resample.
  if (rows.length === 0) return { skipped: "no scored rows (every trial errored or was left unscored)" };
  const primary = formatAnalysis(rows, { comparisonFacet, reference, plan: ctx.plan }, levels);
  if (primary.gaps.length > 0 || !ctx.otherFamilies) return primary;
  return familyWithBothFormats(ctx, ctx.otherFamilies) ?? primary;
}

/**
 * With study families, the items seen in both formats may be another family's (ScaffoldSafety's
 * format study, Sec. 5.1): the first family that has some at the reference, on its own levels.
 */
function familyWithBothFormats(
  ctx: AnalysisContext,
  families: NonNullable<AnalysisContext["otherFamilies"]>,
): FormatAnalysis | undefined {
  const { comparisonFacet, reference } = ctx.resolved;
  const primaryUnpaired = formatAnalysis(formatRows(ctx), { comparisonFacet, reference, plan: ctx.plan }, [
    reference,
  ]).unpaired;
  for (const family of families) {
    const present = [...new Set(family.rows.map((r) => r.facets[comparisonFacet]))];
    if (!present.includes(reference)) continue;
    const declared = ctx.plan.families?.[family.name]?.contrasts?.flatMap((c) => findLevel(c, present) ?? []);
    const levels = [reference, ...(declared ?? present).filter((l) => l !== reference)];
    const rows = scoredRows(
      family.rows.filter((r) => levels.includes(r.facets[comparisonFacet])),
      ctx.plan.population,
    );
    const analysis = formatAnalysis(rows, { comparisonFacet, reference, plan: ctx.plan }, levels);
    if (analysis.gaps.length === 0) continue;
    return { ...analysis, family: { name: family.name, primaryUnpaired: primaryUnpaired ?? [] } };
  }
  return undefined;
}

/** The OE - MC gap per benchmark and model at the reference (the --full summary; the report charts it). */
export function formatGapsTable(f: FormatAnalysis): ResultTable<FormatGap> {
  return defineTable<FormatGap>({
    name: "format gaps",
    columns: [
      { key: "benchmark", header: "benchmark", cell: (g) => g.benchmark },
      { key: "model", header: "model", cell: (g) => g.model },
      { key: "mc", header: f.mc, unit: "%", align: "right", cell: (g) => pct(g.mc?.rate) },
      { key: "oe", header: f.oe, unit: "%", align: "right", cell: (g) => pct(g.oe?.rate) },
      {
        key: "gap",
        header: "gap [95% CI]",
        unit: "pp",
        align: "right",
        cell: (g) => `${pp(g.gap.estimate)} ${bracket(g.gap.ci95, (v) => pp(v))}`,
      },
    ],
  });
}

/** A pp estimate with its interval as each rendering has always written it. */
function ppWithInterval(estimate: number | null, interval: Interval | null, rendering: Rendering): string {
  return rendering === "html"
    ? withInterval(pp(estimate), interval, (v) => pp(v))
    : `${pp(estimate)} ${bracket(interval, (v) => pp(v))}`;
}

/** The equivalence mark after a within-format RD: terse in a terminal, spelled out in the report. */
function equivalentMark(w: WithinFormatContrast, equivalent: boolean | null, rendering: Rendering): string {
  return tostMark(w, equivalent, rendering === "html" ? " (equivalent)" : " equiv.");
}

/** The condition x format 2x2 (the --full summary and the report). */
export function formatTwoByTwoTable(f: FormatAnalysis): ResultTable<WithinFormatContrast> {
  return defineTable<WithinFormatContrast>({
    name: "condition x format 2x2",
    columns: [
      { key: "condition", header: "condition", cell: (w) => w.condition },
      {
        key: "rdMc",
        header: `RD at ${f.mc}`,
        unit: "pp",
        cell: (w, r) => `${ppWithInterval(w.rdMc.estimate, w.rdMc.ci95, r)}${equivalentMark(w, w.rdMc.equivalent, r)}`,
      },
      {
        key: "rdOe",
        header: `RD at ${f.oe}`,
        unit: "pp",
        cell: (w, r) => `${ppWithInterval(w.rdOe.estimate, w.rdOe.ci95, r)}${equivalentMark(w, w.rdOe.equivalent, r)}`,
      },
      {
        key: "difference",
        header: { text: "difference (MC - OE)", html: "difference (MC minus OE)" },
        unit: "pp",
        cell: (w, r) =>
          `${ppWithInterval(w.interaction.estimate, w.interaction.ci95, r)}${
            w.notInterpretable ? ` not interpretable: ${w.notInterpretable}` : ""
          }`,
      },
    ],
  });
}

function summaryLines(analysis: StudyAnalysis): string[] {
  const f = analysis.format;
  if ("skipped" in f) return [`format analysis: skipped (${f.skipped})`];
  const heading = `format: ${f.oe} minus ${f.mc} at ${analysis.meta.reference} (positive: MC understates)`;
  // No case in both formats at the reference: no gap and no 2x2 (it needs the reference in both).
  if (f.gaps.length === 0) return [heading, ...formatComparisonNotes(f)];
  return [
    heading,
    ...formatComparisonNotes(f),
    ...renderText(formatGapsTable(f), f.gaps),
    "",
    `scaffold x format 2x2 (within-format contrasts vs ${analysis.meta.reference})`,
    ...renderText(formatTwoByTwoTable(f), f.withinFormat),
  ];
}

/** The scaffold x format 2x2: each condition's within-format TOST reads its and the reference's cells. */
function gateFormat(format: FormatAnalysis | Skipped, gate: VerdictGate): void {
  if ("skipped" in format) return;
  for (const w of format.withinFormat) {
    const failure = gate.cellFailure(null, [w.condition, gate.reference]);
    if (!failure) continue;
    w.notInterpretable = failure.reason;
    gate.downgraded(failure, `format 2x2 ${w.condition}`);
  }
}

registerAnalysis({
  name: "format",
  kinds: ["comparison"],
  plan: AnalysisPlanSchema.pick({ format: true, population: true, equivalence: true, bootstrap: true }),
  result: "format",
  run: format,
  gate: gateFormat,
  summary: ({ analysis }) => summaryLines(analysis),
});
