import { existsSync, statSync } from "node:fs";
import {
  type AnalysisTable,
  comparisonMarkdown,
  compareSettings,
  compareTables,
  formatComparison,
  loadStudyTable,
  normalizePlan,
  readTidyTable,
  selectScorer,
} from "../../analysis/index.js";
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { InputError } from "../../core/errors.js";
import { writeOutputFile } from "../../core/output-files.js";
import { isPostgresUrl } from "../../run/store/open.js";
import { openStudyDir } from "../study-dir.js";
import { readPlanFile } from "./analyze.js";

export interface CompareCommandOptions {
  json?: boolean;
  /** The Markdown card's file (written only when given). */
  out?: string;
  plan?: string;
  scorer?: string;
}

interface LoadedSide {
  table: AnalysisTable;
  /** The study's own analysis plan (a study directory), else none. */
  plan?: AnalysisPlan;
}

/** One side: a study directory (or store URL) read as `analyze` reads it, or a tidy CSV/JSONL table. */
async function loadSide(target: string, scorer: string | undefined): Promise<LoadedSide> {
  const isDir = isPostgresUrl(target) || (existsSync(target) && statSync(target).isDirectory());
  if (!isDir) {
    if (!existsSync(target)) throw new InputError(`${target}: no such study directory or table file`);
    return { table: selectScorer(readTidyTable(target), scorer) };
  }
  const { store, run } = await openStudyDir(target);
  try {
    const table = await loadStudyTable(store, run, target, scorer);
    if (table.rows.length === 0) throw new InputError(`${target}: no finished or errored trials to compare yet`);
    return { table, plan: normalizePlan(run.spec.analysis) };
  } finally {
    await store.close();
  }
}

/**
 * `parallax compare A B`: pairs two studies on the items they share. Reads both, writes nothing
 * but the Markdown card given to --out; the plan is --plan, else A's own, else the defaults.
 */
export async function compareCommand(a: string, b: string, options: CompareCommandOptions): Promise<void> {
  const sideA = await loadSide(a, options.scorer);
  const sideB = await loadSide(b, options.scorer);
  const plan = options.plan ? readPlanFile(options.plan) : (sideA.plan ?? normalizePlan(undefined));
  const comparison = compareTables(
    { path: a, table: sideA.table },
    { path: b, table: sideB.table },
    compareSettings(plan),
  );
  if (options.out) writeOutputFile(options.out, comparisonMarkdown(comparison), "comparison card");
  if (options.json) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
  else {
    process.stdout.write(formatComparison(comparison));
    if (options.out) process.stdout.write(`\nwrote ${options.out}\n`);
  }
}
