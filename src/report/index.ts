// Reports: the offline HTML report with server-side SVG charts and the trials page.
import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { PresentedAnalysis, Scorecard } from "../analysis/index.js";
import { cellId } from "../analysis/index.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";
import { reportPaths } from "./output.js";
import { renderReport, type TrialLink } from "./report.js";
import { collectTrials, renderTrialsPage } from "./trials.js";

export { esc, GENERATOR_MARK, page } from "./html.js";
export { checkReportTargets, isReportOutput, type ReportPaths, reportPaths, trialsPathFor } from "./output.js";
export { renderReport } from "./report.js";
export * from "./sections/registry.js";
export { collectTrials, renderTrialsPage, trialAnchor } from "./trials.js";

/**
 * Writes the report (at `reportPath`) and its trials page beside it (`trialsPathFor`) from a
 * stored analysis; returns both paths. It overwrites what is there: callers check the targets
 * first (`checkReportTargets`).
 */
export async function writeReport(
  outcome: PresentedAnalysis,
  card: Scorecard,
  store: TrialStore,
  run: RunRecord,
  reportPath: string,
): Promise<{ report: string; trials: string }> {
  const { trials: trialsPath } = reportPaths(reportPath);
  const trialsHref = encodeURI(basename(trialsPath));
  const entries = await collectTrials(store, run, outcome.analysis);
  const trialsByCell = new Map<string, TrialLink[]>();
  for (const e of entries) {
    const id = cellId(e.trial.modelId, e.trial.benchmarkId, e.configuration);
    const list = trialsByCell.get(id) ?? [];
    list.push({ id: e.trial.id, score: e.trial.outcome?.score ?? null });
    trialsByCell.set(id, list);
  }
  writeFileSync(trialsPath, renderTrialsPage(entries, outcome.analysis, basename(reportPath)));
  writeFileSync(reportPath, renderReport(outcome, card, { trialsHref, trialsByCell }));
  return { report: reportPath, trials: trialsPath };
}
