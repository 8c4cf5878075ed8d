import { join, resolve } from "node:path";
import { analyzeDirectory, buildScorecard } from "../../analysis/index.js";
import { InputError } from "../../core/errors.js";
import { writeReport } from "../../report/index.js";
import { isPostgresUrl } from "../../run/store/open.js";
import { openStudyDir } from "../study-dir.js";
import { readPlanFile } from "./analyze.js";

/** Writes the self-contained HTML report (default DIR/report.html) and trials.html beside it. */
export async function reportCommand(
  dir: string,
  options: { out?: string; plan?: string; scorer?: string },
): Promise<void> {
  if (options.out && !/\.html?$/i.test(options.out))
    throw new InputError(`--out must name an .html file, found '${options.out}'`);
  if (!options.out && isPostgresUrl(dir))
    throw new InputError("a PostgreSQL store needs --out FILE.html for the report");
  const plan = options.plan ? readPlanFile(options.plan) : undefined;
  const { store, run } = await openStudyDir(dir);
  try {
    const outcome = await analyzeDirectory(dir, store, run, { plan, scorer: options.scorer });
    const card = buildScorecard(outcome.analysis, outcome.methodology);
    const written = await writeReport(outcome, card, store, run, resolve(options.out ?? join(dir, "report.html")));
    const simulated = outcome.analysis.meta.simulated ? " (SIMULATED data)" : "";
    process.stdout.write(`wrote ${written.report} and ${written.trials}${simulated}\n`);
  } finally {
    await store.close();
  }
}
