import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ANALYSIS_FILE, requireCurrentRows, runAnalysisRecord } from "../../analysis/index.js";
import { wrap } from "../../analysis/core/text.js";
import { InputError } from "../../core/errors.js";
import { prepareOutputFile } from "../../core/output-files.js";
import { checkReportTargets, reportPaths, scanRun, writeReport } from "../../report/index.js";
import { isPostgresUrl } from "../../run/store/open.js";
import { openStudyDir } from "../study-dir.js";

/** SQLite's page cache while reporting (its own default, which better-sqlite3 raises to 16 MB). */
export const REPORT_CACHE_KIB = 2_000;

/**
 * Writes the self-contained HTML report (default DIR/report.html) and its trials page beside it
 * (trials.html, or NAME.trials.html for --out NAME.html) from the analysis `parallax analyze`
 * stored (DIR/analysis.json; for a PostgreSQL store, the analysis.json beside --out): nothing is
 * recomputed. It never overwrites a file it did not write unless --force; it prints both paths.
 */
export async function reportCommand(
  dir: string,
  options: { out?: string; plan?: string; scorer?: string; force?: boolean; viewer?: string },
): Promise<void> {
  if (options.out && !/\.html?$/i.test(options.out))
    throw new InputError(`--out must name an .html file, found '${options.out}'`);
  if (!options.out && isPostgresUrl(dir))
    throw new InputError("a PostgreSQL store needs --out FILE.html for the report");
  // The plan and the scorer are chosen when the analysis is computed, not when it is rendered.
  for (const option of ["plan", "scorer"] as const) {
    if (options[option])
      throw new InputError(
        `report renders the stored analysis: run 'parallax analyze ${dir} --${option} ${options[option]}', then 'parallax report ${dir}'`,
      );
  }
  if (options.viewer && !/^https?:\/\//i.test(options.viewer))
    throw new InputError(
      `--viewer must be the viewer's http(s) URL (printed by parallax view), found '${options.viewer}'`,
    );
  const reportPath = resolve(options.out ?? join(dir, "report.html"));
  const paths = reportPaths(reportPath);
  checkReportTargets(paths, options.force === true);
  // The report's folder is created, as every output folder is; a file in the way is refused here.
  prepareOutputFile(reportPath, "report");
  const recordPath = isPostgresUrl(dir) ? join(dirname(reportPath), ANALYSIS_FILE) : join(dir, ANALYSIS_FILE);
  // SQLite's default 16 MB page cache would fill with pages the report reads once: a small one
  // keeps its memory flat in the store's size (docs/PERFORMANCE.md).
  const { store, run } = await openStudyDir(dir, { cacheKiB: REPORT_CACHE_KIB });
  try {
    // On PostgreSQL, `analyze URL` stored the record in the store: it is written beside the report.
    const fromStore = isPostgresUrl(dir) ? await store.getAnalysis(run.id) : undefined;
    if (fromStore !== undefined) writeFileSync(recordPath, fromStore);
    // One pass over the run's trials both checks the stored analysis against the store (its rows
    // hash) and finds the trial pages' cells.
    const record = runAnalysisRecord(dir, run, recordPath);
    const scan = await scanRun(store, run, record.analysis, { path: dir, scorer: record.inputs.scorer ?? undefined });
    requireCurrentRows(record, scan.rowsHash, recordPath, dir);
    const written = await writeReport({ outcome: record, card: record.scorecard }, { store, run }, reportPath, {
      force: options.force === true,
      viewerUrl: options.viewer,
      cells: scan.cells,
    });
    const simulated = record.analysis.meta.simulated ? " (SIMULATED data)" : "";
    process.stdout.write(`wrote the report to ${written.report}${simulated}\n`);
    const trialsLine = `wrote the trials page to ${written.trials}, an index of ${written.pages.length} page file(s) beside it (the report links to them: keep them together)`;
    process.stdout.write(`${wrap(trialsLine, 120, "  ").join("\n")}\n`);
  } finally {
    await store.close();
  }
}
