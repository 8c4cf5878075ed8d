import { existsSync, statSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import * as z from "zod";
import {
  type AnalysisTable,
  type NameMap,
  comparisonMarkdown,
  compareSettings,
  compareTables,
  formatComparison,
  loadStudyTable,
  normalizePlan,
  readTidyTable,
  selectScorer,
  withViewerLinks,
} from "../../analysis/index.js";
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { InputError } from "../../core/errors.js";
import { readBoundedText, UnreadablePathError } from "../../core/guarded-read.js";
import { SPEC_FILE_LIMIT } from "../../core/spec-yaml.js";
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
  /** A YAML file of renames from A's model and condition names to B's. */
  map?: string;
}

const NameMapSchema = z
  .object({
    models: z.record(z.string(), z.string()).default({}),
    conditions: z.record(z.string(), z.string()).default({}),
  })
  .strict();

/** The --map file: `models:` and `conditions:`, each a mapping from A's name to B's. */
export function readNameMap(path: string): NameMap {
  let value: unknown;
  try {
    value = parseYaml(readBoundedText(path, SPEC_FILE_LIMIT));
  } catch (error) {
    const why = error instanceof UnreadablePathError ? error.reason : (error as Error).message.split("\n")[0];
    throw new InputError(`cannot read the name map ${path}: ${why}`);
  }
  const parsed = NameMapSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new InputError(
    `${path}: at ${issue.path.join(".") || "the top"}: ${issue.message} (expected models: and conditions: mappings of A's names to B's)`,
  );
}

interface LoadedSide {
  table: AnalysisTable;
  /** The study's own analysis plan (a study directory), else none. */
  plan?: AnalysisPlan;
  /** A study directory or store URL, which the viewer can serve (a tidy table is not). */
  store: boolean;
}

/** One side: a study directory (or store URL) read as `analyze` reads it, or a tidy CSV/JSONL table. */
export async function loadSide(target: string, scorer: string | undefined): Promise<LoadedSide> {
  const isDir = isPostgresUrl(target) || (existsSync(target) && statSync(target).isDirectory());
  if (!isDir) {
    if (!existsSync(target)) throw new InputError(`${target}: no such study directory or table file`);
    return { table: selectScorer(readTidyTable(target), scorer), store: false };
  }
  const { store, run } = await openStudyDir(target);
  try {
    const table = await loadStudyTable(store, run, target, scorer);
    if (table.rows.length === 0) throw new InputError(`${target}: no finished or errored trials to compare yet`);
    return { table, plan: normalizePlan(run.spec.analysis), store: true };
  } finally {
    await store.close();
  }
}

/**
 * `parallax compare A B`: pairs two studies on the items they share. Reads both, writes nothing
 * but the Markdown card given to --out; the plan is --plan, else A's own, else the defaults. Two
 * study directories (or store URLs) get the viewer's side-by-side path of each flipped item.
 */
export async function compareCommand(a: string, b: string, options: CompareCommandOptions): Promise<void> {
  const sideA = await loadSide(a, options.scorer);
  const sideB = await loadSide(b, options.scorer);
  const map = options.map ? readNameMap(options.map) : undefined;
  const plan = options.plan ? readPlanFile(options.plan) : (sideA.plan ?? normalizePlan(undefined));
  const compared = compareTables(
    { path: a, table: sideA.table },
    { path: b, table: sideB.table },
    compareSettings(plan),
    map,
  );
  // Both sides in stores: each flipped item opens side by side in `parallax view A --with B`.
  const comparison = sideA.store && sideB.store ? withViewerLinks(compared) : compared;
  if (options.out) writeOutputFile(options.out, comparisonMarkdown(comparison), "comparison card");
  if (options.json) process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
  else {
    process.stdout.write(formatComparison(comparison));
    if (options.out) process.stdout.write(`\nwrote ${options.out}\n`);
  }
}
