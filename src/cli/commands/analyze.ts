import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import {
  type AnalysisOutcome,
  analyzeDirectory,
  analyzeTableFile,
  buildScorecard,
  formatSummary,
  parsePlan,
  type Scorecard,
  scorecardMarkdown,
} from "../../analysis/index.js";
import type { AnalysisPlan } from "../../contracts/analysis.js";
import { InputError } from "../../core/errors.js";
import { isPostgresUrl } from "../../run/store/open.js";
import { openStudyDir } from "../study-dir.js";

export interface AnalyzeCommandOptions {
  json?: boolean;
  out?: string;
  plan?: string;
  scorer?: string;
}

/** An analysis plan from a YAML or JSON file: the plan itself, or a spec-like file with an `analysis` key. */
export function readPlanFile(path: string): AnalysisPlan {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new InputError(`cannot read the analysis plan ${path}`);
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

/** Runs the analysis of a study directory (writing its scorecard files) or of a tidy table. */
export async function runAnalysis(
  target: string,
  options: { plan?: string; scorer?: string },
): Promise<{ outcome: AnalysisOutcome; scorecard: Scorecard; written: string[] }> {
  const plan = options.plan ? readPlanFile(options.plan) : undefined;
  if (!isStudyDir(target)) {
    if (!existsSync(target)) throw new InputError(`${target}: no such study directory or table file`);
    if (options.scorer)
      throw new InputError("--scorer reads stored scores of a study directory, not an imported table");
    const outcome = await analyzeTableFile(target, { plan });
    return { outcome, scorecard: buildScorecard(outcome.analysis, outcome.methodology), written: [] };
  }
  const { store, run } = await openStudyDir(target);
  try {
    const outcome = await analyzeDirectory(target, store, run, { plan, scorer: options.scorer });
    const scorecard = buildScorecard(outcome.analysis, outcome.methodology);
    // A PostgreSQL store has no directory to write the scorecard into: --out and --json still work.
    if (isPostgresUrl(target)) return { outcome, scorecard, written: [] };
    const written = [join(target, "analysis.json"), join(target, "scorecard.json"), join(target, "scorecard.md")];
    writeFileSync(written[0], `${JSON.stringify(resultJson(outcome, scorecard), null, 2)}\n`);
    writeFileSync(written[1], `${JSON.stringify(scorecard, null, 2)}\n`);
    writeFileSync(written[2], scorecardMarkdown(scorecard));
    return { outcome, scorecard, written };
  } finally {
    await store.close();
  }
}

export function resultJson(outcome: AnalysisOutcome, scorecard: Scorecard) {
  return { analysis: outcome.analysis, methodology: outcome.methodology, scorecard };
}

export async function analyzeCommand(target: string, options: AnalyzeCommandOptions): Promise<void> {
  const { outcome, scorecard, written } = await runAnalysis(target, options);
  const json = `${JSON.stringify(resultJson(outcome, scorecard), null, 2)}\n`;
  if (options.out) writeFileSync(options.out, json);
  if (options.json) {
    process.stdout.write(json);
    return;
  }
  process.stdout.write(formatSummary(outcome.analysis, outcome.methodology));
  const files = [...written, ...(options.out ? [options.out] : [])];
  if (files.length) process.stdout.write(`\nwrote ${files.join(", ")}\n`);
}
