import { dirname, join, resolve } from "node:path";
import { ANALYSIS_FILE, storedAnalysis } from "../../analysis/index.js";
import { InputError } from "../../core/errors.js";
import { writeReport } from "../../report/index.js";
import { isPostgresUrl } from "../../run/store/open.js";
import { openStudyDir } from "../study-dir.js";

/**
 * Writes the self-contained HTML report (default DIR/report.html) and trials.html beside it from
 * the analysis `parallax analyze` stored (DIR/analysis.json; for a PostgreSQL store, the
 * analysis.json beside --out): nothing is recomputed.
 */
export async function reportCommand(
  dir: string,
  options: { out?: string; plan?: string; scorer?: string },
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
  const reportPath = resolve(options.out ?? join(dir, "report.html"));
  const recordPath = isPostgresUrl(dir) ? join(dirname(reportPath), ANALYSIS_FILE) : join(dir, ANALYSIS_FILE);
  const { store, run } = await openStudyDir(dir);
  try {
    const record = await storedAnalysis(dir, store, run, recordPath);
    const written = await writeReport(record, record.scorecard, store, run, reportPath);
    const simulated = record.analysis.meta.simulated ? " (SIMULATED data)" : "";
    process.stdout.write(`wrote ${written.report} and ${written.trials}${simulated}\n`);
  } finally {
    await store.close();
  }
}
