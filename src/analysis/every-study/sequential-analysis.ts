/**
 * The sequential design of a run that declared `execution.sequential`: its looks, boundaries
 * and decisions as the run recorded them, and each contrast's estimate with its repeated
 * confidence interval at the boundary of the look that ended it (Jennison & Turnbull 2000,
 * ch. 9). Those intervals hold their coverage whatever the looks decided; the fixed-n intervals
 * of the other analyses do not account for the looks, so these lines come before them.
 */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { describeLooks } from "../../run/sequential/describe.js";
import type { LookRecord } from "../../run/sequential/run-looks.js";
import { type PresentedAnalysis, registerAnalysis } from "../core/registry.js";

const pp = (x: number) => `${(100 * x).toFixed(1)} pp`;

export interface SequentialEstimate {
  contrast: string;
  /** The look whose boundary the interval uses: the contrast's deciding look, else the run's last. */
  look: number;
  estimate: number | null;
  rci: [number, number] | null;
  decision: string | null;
}

/** Each contrast at the look that ended it. */
export function sequentialEstimates(looks: readonly LookRecord[]): SequentialEstimate[] {
  const last = looks.at(-1);
  if (!last) return [];
  return last.contrasts.map((c) => ({
    contrast: c.contrast,
    look: c.decidedAt ?? last.look,
    estimate: c.estimate,
    rci: c.rci,
    decision: c.decision,
  }));
}

function estimateLines(looks: readonly LookRecord[]): string[] {
  const last = looks.at(-1)!;
  const total = last.design.looks.length;
  return [
    `  repeated CIs at the boundary of the look that ended each contrast (they account for the looks; fixed-n CIs do not):`,
    ...sequentialEstimates(looks).map(
      (e) =>
        `    ${e.contrast}: ${e.estimate === null ? "no estimate" : pp(e.estimate)}` +
        `${e.rci ? `, RCI [${pp(e.rci[0])}, ${pp(e.rci[1])}]` : ""} (look ${e.look}/${total}` +
        `${e.decision ? `, stopped: ${e.decision}` : ", not stopped"})`,
    ),
  ];
}

function summaryLines({ methodology }: PresentedAnalysis): string[] {
  const looks = methodology.sequential;
  if (!looks || looks.length === 0) return [];
  return [...describeLooks(looks), ...estimateLines(looks)];
}

function overviewLines({ methodology }: PresentedAnalysis): string[] {
  const looks = methodology.sequential;
  if (!looks || looks.length === 0) return [];
  const last = looks.at(-1)!;
  const ended = last.end
    ? `${last.end.early ? `stopped early at look ${last.look}` : "ran to the last look"}; ${last.end.trialsNotRun} trial(s), $${last.end.costNotSpentUsd.toFixed(2)} not spent`
    : `in progress after look ${last.look}`;
  return [`sequential (${last.design.spending}, ${last.design.looks.length} looks): ${ended}`, ...estimateLines(looks)];
}

registerAnalysis({
  name: "sequential",
  kinds: "every",
  plan: AnalysisPlanSchema.pick({ power: true }),
  summary: summaryLines,
  overview: overviewLines,
});
