/**
 * The readable summary `parallax analyze` prints (the JSON result holds everything): a header,
 * then each registered analysis's lines in registration order.
 */
import "./all-analyses.js";
import type { Methodology } from "./methodology.js";
import { registeredAnalyses, type StudyAnalysis } from "./registry.js";
import { SIMULATED_NOTICE } from "./scorecard.js";
import { pp } from "./text.js";

function headerLines(analysis: StudyAnalysis): string[] {
  const m = analysis.meta;
  const c = analysis.counts;
  return [
    `analysis of ${m.source.study ?? m.source.path}${m.source.runId ? ` (run ${m.source.runId})` : ""}${
      m.source.scorer ? `; outcomes from scorer ${m.source.scorer}` : ""
    }`,
    `rows ${c.analysed} analysed | ${c.clusters} cases | ${c.models.length} model(s) | ${c.benchmarks.length} benchmark(s) | errored ${c.errored} | parse failures ${c.parseFailures} | unscored ${c.unscored} | pending ${c.pending}`,
    `comparison: ${m.comparisonFacet} vs ${m.reference}${
      Object.keys(m.restrict).length
        ? ` at ${Object.entries(m.restrict)
            .map(([f, v]) => `${f}=${v}`)
            .join(", ")}`
        : ""
    }; primary population ${m.primaryPopulation.toUpperCase()}; TOST margin ${pp(m.plan.equivalence.margin)}`,
    ...m.notes.map((n) => `note: ${n}`),
    "",
  ];
}

export function formatSummary(analysis: StudyAnalysis, methodology: Methodology): string {
  const out: string[] = [];
  if (analysis.meta.simulated) out.push(`*** ${SIMULATED_NOTICE} ***`, "");
  out.push(...headerLines(analysis));
  for (const registered of registeredAnalyses()) out.push(...(registered.summary?.({ analysis, methodology }) ?? []));
  if (analysis.meta.simulated) out.push("", `*** ${SIMULATED_NOTICE} ***`);
  return `${out.join("\n")}\n`;
}
