// Reports: the offline HTML report with server-side SVG charts and the trials page.
import { writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { PresentedAnalysis, Scorecard } from "../analysis/index.js";
import { cellId } from "../analysis/index.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";
import { renderReport, type TrialLink } from "./report.js";
import { collectTrials, renderTrialsPage } from "./trials.js";

export { esc, page } from "./html.js";
export { renderReport } from "./report.js";
export * from "./sections/registry.js";
export { collectTrials, renderTrialsPage, trialAnchor } from "./trials.js";

/** Writes report.html (at `reportPath`) and trials.html beside it from a stored analysis; returns both paths. */
export async function writeReport(
  outcome: PresentedAnalysis,
  card: Scorecard,
  store: TrialStore,
  run: RunRecord,
  reportPath: string,
): Promise<{ report: string; trials: string }> {
  const trialsPath = join(dirname(reportPath), "trials.html");
  const entries = await collectTrials(store, run, outcome.analysis);
  const trialsByCell = new Map<string, TrialLink[]>();
  for (const e of entries) {
    const id = cellId(e.trial.modelId, e.trial.benchmarkId, e.configuration);
    const list = trialsByCell.get(id) ?? [];
    list.push({ id: e.trial.id, score: e.trial.outcome?.score ?? null });
    trialsByCell.set(id, list);
  }
  writeFileSync(trialsPath, renderTrialsPage(entries, outcome.analysis, basename(reportPath)));
  writeFileSync(reportPath, renderReport(outcome, card, { trialsHref: "trials.html", trialsByCell }));
  return { report: reportPath, trials: trialsPath };
}
