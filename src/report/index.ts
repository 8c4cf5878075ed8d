// Reports: the offline HTML report with server-side SVG charts and the paged trials pages.
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { basename, dirname } from "node:path";
import type { PresentedAnalysis, Scorecard } from "../analysis/index.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";
import { studiesBeside } from "./across.js";
import { reportPaths } from "./output.js";
import { renderReport } from "./report.js";
import { type ScannedCells, writeTrialsPages } from "./trials.js";

export { type StudyBeside, studiesBeside } from "./across.js";
export { esc, GENERATOR_MARK, page } from "./html.js";
export { cellLink, cellPageLink, cellViewerLink, trialLink } from "./links.js";
export { checkReportTargets, isReportOutput, type ReportPaths, reportPaths, trialsPathFor } from "./output.js";
export { renderReport } from "./report.js";
export * from "./sections/registry.js";
export {
  type ScannedCells,
  scanRun,
  TRIALS_PER_PAGE,
  trialAnchor,
  trialCells,
  trialsPagePath,
  writeTrialsPages,
} from "./trials.js";

export interface WriteReportOptions {
  /** Overwrite trials page files that parallax report did not write. */
  force?: boolean;
  /** The viewer's URL (`parallax view`): the report's trial links open the viewer. */
  viewerUrl?: string;
  /** The study's folder (default: the report's folder); its sibling studies get compare/profile commands. */
  studyDir?: string;
  /** The run's cells with their trial ids, when a `scanRun` (which checked the stored analysis) found them. */
  cells?: ScannedCells;
}

/**
 * Writes the report (at `reportPath`) and its trials pages beside it (the index at
 * `trialsPathFor`, the pages numbered after it) from a stored analysis; returns the paths. It
 * overwrites what is there: callers check the targets first (`checkReportTargets`).
 */
export async function writeReport(
  presented: { outcome: PresentedAnalysis; card: Scorecard },
  source: { store: TrialStore; run: RunRecord },
  reportPath: string,
  options: WriteReportOptions = {},
): Promise<{ report: string; trials: string; pages: string[] }> {
  const { outcome, card } = presented;
  const { store, run } = source;
  const { trials: trialsPath } = reportPaths(reportPath);
  const trialsHref = encodeURI(basename(trialsPath));
  const written = await writeTrialsPages(source, outcome.analysis, {
    indexPath: trialsPath,
    reportHref: encodeURI(basename(reportPath)),
    force: options.force === true,
    cells: options.cells,
  });
  const cellTrials = new Map(written.cells.map((cell) => [cell.id, cell]));
  const pageOf = new Map([...written.pageOf].map(([anchor, file]) => [anchor, encodeURI(file)]));
  const studyDir = options.studyDir ?? dirname(reportPath);
  const beside = await studiesBeside(studyDir, store, run.id);
  const html = renderReport(outcome, card, {
    trialsHref,
    cellTrials,
    pageOf,
    viewerUrl: options.viewerUrl,
    studyDir: beside.length > 0 ? studyDir : undefined,
    studiesBeside: beside,
  });
  const out = createWriteStream(reportPath);
  out.end(html);
  await once(out, "close");
  return { report: reportPath, trials: trialsPath, pages: written.pages };
}
