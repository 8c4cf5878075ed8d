import { existsSync, statSync } from "node:fs";
import { readBoundedText, UnreadablePathError } from "../../core/guarded-read.js";
import { SPEC_FILE_LIMIT } from "../../core/spec-yaml.js";
import { writeOutputFile } from "../../core/output-files.js";
import { basename, dirname } from "node:path";
import { parse as parseYaml } from "yaml";
import {
  type AnalysisRecord,
  analysisRecord,
  analyzeDirectory,
  analyzeTableFile,
  formatOverview,
  formatSummary,
  failedCheckLabel,
  parsePlan,
  recordJson,
  writeAnalysisRecord,
} from "../../analysis/index.js";
import { wrap } from "../../analysis/core/text.js";
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { InputError } from "../../core/errors.js";
import { isPostgresUrl } from "../../run/store/open.js";
import { parsePostgresUrl } from "../../run/store/url.js";
import { openStudyDir } from "../study-dir.js";

/** `analyze`'s exit code when a measurement-integrity check failed (README, docs/ANALYSIS.md). */
export const EXIT_INTEGRITY_FAILED = 3;

export interface AnalyzeCommandOptions {
  json?: boolean;
  /** Every table instead of the overview. */
  full?: boolean;
  out?: string;
  plan?: string;
  scorer?: string;
  /** Compare different item sets as independent samples, labelled unpaired. */
  unpaired?: boolean;
}

/** An analysis plan from a YAML or JSON file: the plan itself, or a spec-like file with an `analysis` key. */
export function readPlanFile(path: string): AnalysisPlan {
  let text: string;
  try {
    text = readBoundedText(path, SPEC_FILE_LIMIT);
  } catch (error) {
    const why = error instanceof UnreadablePathError ? `: ${error.reason}` : "";
    throw new InputError(`cannot read the analysis plan ${path}${why}`);
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new InputError(`${path}: not valid YAML/JSON (${(error as Error).message})`);
  }
  const record = value as Record<string, unknown> | null;
  const plan = record && typeof record === "object" && "analysis" in record ? record.analysis : value;
  try {
    return parsePlan(plan, "analysis");
  } catch (error) {
    throw new InputError(`${path}: ${(error as Error).message}`);
  }
}

function isStudyDir(target: string): boolean {
  return isPostgresUrl(target) || (existsSync(target) && statSync(target).isDirectory());
}

/** Runs the analysis of a study directory (storing its analysis record and scorecard files) or of a tidy table. */
export async function runAnalysis(
  target: string,
  options: { plan?: string; scorer?: string; unpaired?: boolean },
): Promise<{ record: AnalysisRecord; written: string[]; stored?: string }> {
  const plan = options.plan ? readPlanFile(options.plan) : undefined;
  if (!isStudyDir(target)) {
    if (!existsSync(target)) throw new InputError(`${target}: no such study directory or table file`);
    const outcome = await analyzeTableFile(target, { plan, scorer: options.scorer, unpaired: options.unpaired });
    return { record: analysisRecord(outcome), written: [] };
  }
  const { store, run } = await openStudyDir(target);
  try {
    const record = analysisRecord(
      await analyzeDirectory(target, store, run, { plan, scorer: options.scorer, unpaired: options.unpaired }),
    );
    // A PostgreSQL store has no directory to write the record into: the store keeps it, for `report`.
    if (isPostgresUrl(target)) {
      await store.saveAnalysis(run.id, recordJson(record));
      return {
        record,
        written: [],
        stored: `the analysis of run ${run.id} in ${parsePostgresUrl(target).description}`,
      };
    }
    return { record, written: writeAnalysisRecord(target, record) };
  } finally {
    await store.close();
  }
}

/** The files written, by folder: "wrote analysis.json, scorecard.md in DIR" (each line within 160 characters). */
function writtenLines(files: string[]): string[] {
  const byDir = new Map<string, string[]>();
  for (const file of files) byDir.set(dirname(file), [...(byDir.get(dirname(file)) ?? []), basename(file)]);
  return [...byDir].map(([dir, names]) => `wrote ${names.join(", ")} in ${dir}`);
}

export async function analyzeCommand(target: string, options: AnalyzeCommandOptions): Promise<void> {
  const { record, written, stored } = await runAnalysis(target, options);
  const json = recordJson(record);
  if (options.out) writeOutputFile(options.out, json, "analysis file");
  if (options.json) process.stdout.write(json);
  else {
    const print = options.full ? formatSummary : formatOverview;
    process.stdout.write(print(record.analysis, record.methodology));
    const files = [...written, ...(options.out ? [options.out] : [])];
    const lines = [...(stored ? [`wrote ${stored}`] : []), ...writtenLines(files)];
    if (lines.length) process.stdout.write(`\n${lines.join("\n")}\n`);
  }
  // A failed integrity check: a clear line on stderr and exit 3, so that scripts notice.
  if (record.analysis.integrity?.failed) {
    const planted = record.analysis.integrity.planted ?? [];
    const failed = record.analysis.integrity.checks
      .filter((c) => c.status === "fail")
      .map((c) => failedCheckLabel(planted, c));
    // Wrapped to a 120-column terminal.
    const lines = [
      "parallax analyze: MEASUREMENT INTEGRITY FAILED: the affected cells' verdicts are not interpretable.",
      `  Failed: ${failed.join(", ")}.`,
    ];
    process.stderr.write(`${lines.flatMap((line) => wrap(line, 120, "  ")).join("\n")}\n`);
    process.exitCode = EXIT_INTEGRITY_FAILED;
  }
}
