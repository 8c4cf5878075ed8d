/**
 * The self-audit chronology (Auditing the Audit, Box 1), read from the study directory with the
 * methodology facts: this entry only presents it, in `analyze`'s summary. The report renders it
 * (src/report/sections/chronology.ts) and cites entries beside the cells they affect.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { chronologyLine } from "../core/chronology.js";
import { type PresentedAnalysis, registerAnalysis } from "../core/registry.js";

function summaryLines({ methodology }: PresentedAnalysis): string[] {
  const chronology = methodology.chronology;
  if (!chronology) return [];
  const out = [`self-audit chronology: ${chronologyLine(chronology.totals)}`];
  for (const e of chronology.entries) {
    const cells = e.affected_cells.map((c) => `${c.model} x ${c.benchmark}`).join(", ");
    out.push(`  ${e.id} [${e.failure_class}, ${e.provenance}] ${e.status}: ${e.symptom} (${cells})`);
  }
  return out;
}

registerAnalysis({
  name: "chronology",
  kinds: "every",
  plan: AnalysisPlanSchema.pick({}),
  summary: summaryLines,
  // The totals line; --full lists the entries.
  overview: (input) => summaryLines(input).slice(0, 1),
});
