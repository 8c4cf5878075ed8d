/**
 * The analysis result as one versioned study artifact: `analysis.json` holds the analysis, the
 * methodology facts and the scorecard, with the schema version, the Parallax version and the
 * hashes of its inputs. The analysis layer writes it (with scorecard.json and scorecard.md) and
 * reads it back through `readAnalysisRecord`, so `parallax report` renders what `analyze` stored
 * instead of recomputing it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ANALYSIS_RECORD_FORMAT,
  ANALYSIS_RECORD_VERSION,
  type AnalysisInputs,
  AnalysisRecordSchema,
} from "../../contracts/analysis-record.js";
import { InputError } from "../../core/errors.js";
import { PARALLAX_VERSION } from "../../core/version.js";
import type { RunRecord, TrialStore } from "../../run/store/types.js";
import type { AnalysisOutcome } from "./directory.js";
import type { Methodology } from "./methodology.js";
import { storedRowsHash } from "./rows-hash.js";
import { cardFields, ranAnalyses, type StudyAnalysis } from "./registry.js";
import { kindCard } from "./kinds.js";
import { buildScorecard, type Scorecard, SIMULATED_NOTICE, scorecardMarkdown } from "./scorecard.js";

export const ANALYSIS_FILE = "analysis.json";

export interface AnalysisRecord {
  format: typeof ANALYSIS_RECORD_FORMAT;
  schemaVersion: number;
  parallaxVersion: string;
  writtenAt: string;
  inputs: AnalysisInputs;
  analysis: StudyAnalysis;
  methodology: Methodology;
  scorecard: Scorecard;
}

/** The record of an analysis outcome, its scorecard built from the registered card fields. */
export function analysisRecord(outcome: AnalysisOutcome, now: () => Date = () => new Date()): AnalysisRecord {
  return {
    format: ANALYSIS_RECORD_FORMAT,
    schemaVersion: ANALYSIS_RECORD_VERSION,
    parallaxVersion: PARALLAX_VERSION,
    writtenAt: now().toISOString(),
    inputs: outcome.inputs,
    analysis: outcome.analysis,
    methodology: outcome.methodology,
    scorecard: buildScorecard(outcome.analysis, outcome.methodology),
  };
}

export function recordJson(record: AnalysisRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

/**
 * Writes DIR/analysis.json, then the card files of the study's kinds (a comparison's
 * scorecard.json and scorecard.md, an agent study's agent-card.*), then each registered
 * analysis's own files beside them (the audit gate report, the GRID card); returns their paths.
 * A record written before study kinds is a comparison's.
 */
export function writeAnalysisRecord(dir: string, record: AnalysisRecord): string[] {
  const written = [join(dir, ANALYSIS_FILE)];
  writeFileSync(written[0], recordJson(record));
  const simulated = record.analysis.meta.simulated;
  for (const kind of record.analysis.meta.selection?.kinds ?? ["comparison" as const]) {
    const card = kindCard(kind);
    const scorecard = { json: record.scorecard, markdown: () => scorecardMarkdown(record.scorecard) };
    const files = card.write?.(dir, { ...record, scorecard }) ?? [];
    if (simulated && !card.carriesNotice) for (const file of files) labelSimulated(file);
    written.push(...files);
  }
  for (const analysis of ranAnalyses(record.analysis)) {
    const files = analysis.writeFiles?.(dir, record.analysis) ?? [];
    if (simulated) for (const file of files) labelSimulated(file);
    written.push(...files);
  }
  return written;
}

/**
 * Puts the SIMULATED notice on a card an analysis wrote (the GRID card, the audit gate), as the
 * scorecard carries it: atop a Markdown card, and as `simulated` and `notice` first in a JSON one.
 */
function labelSimulated(file: string): void {
  const text = readFileSync(file, "utf8");
  if (file.endsWith(".md")) writeFileSync(file, `> **${SIMULATED_NOTICE}**\n\n${text}`);
  else if (file.endsWith(".json")) {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      writeFileSync(file, `${JSON.stringify({ simulated: true, notice: SIMULATED_NOTICE, ...value }, null, 2)}\n`);
  }
}

/**
 * Reads DIR/analysis.json (or the file `path` names), checked: missing, corrupt, from a newer
 * Parallax or missing a registered analysis are each an InputError saying what to run.
 * `target` is the study as the user names it, for the message.
 */
export function readAnalysisRecord(path: string, target: string): AnalysisRecord {
  const rerun = `run 'parallax analyze ${target}'`;
  if (!existsSync(path)) throw new InputError(`${target} has no stored analysis (${path}); ${rerun} first`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new InputError(`${path} is not valid JSON (${(error as Error).message}); ${rerun} again`);
  }
  const version = (value as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (typeof version === "number" && version > ANALYSIS_RECORD_VERSION) {
    const by = (value as { parallaxVersion?: unknown }).parallaxVersion;
    throw new InputError(
      `${path} has analysis schema version ${version} (written by Parallax ${String(by)}); this Parallax (${PARALLAX_VERSION}) reads up to version ${ANALYSIS_RECORD_VERSION}: upgrade Parallax or ${rerun} again`,
    );
  }
  const parsed = AnalysisRecordSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`);
    throw new InputError(`${path} is not a Parallax analysis record (${problems.join("; ")}); ${rerun} again`);
  }
  const record = value as AnalysisRecord;
  // A left-out analysis has neither its result nor its card fields.
  const missing = [
    ...ranAnalyses(record.analysis).flatMap((a) =>
      a.result && !(a.result in record.analysis) ? [`analysis.${a.result}`] : [],
    ),
    ...cardFields(record.analysis).flatMap((f) => (f.field in record.scorecard ? [] : [`scorecard.${f.field}`])),
  ];
  if (missing.length > 0) throw new InputError(`${path} lacks ${missing.join(", ")}; ${rerun} again`);
  return record;
}

/**
 * The stored analysis of this run, checked against the store: a record of another run, or one
 * whose analysed rows (outcomes, trials, rescorings) changed since, is refused with what to run.
 */
export async function storedAnalysis(
  target: string,
  store: TrialStore,
  run: RunRecord,
  path: string = join(target, ANALYSIS_FILE),
): Promise<AnalysisRecord> {
  const record = runAnalysisRecord(target, run, path);
  // Hashed a store page at a time: the report's memory stays flat in the trial count.
  requireCurrentRows(record, await storedRowsHash(store, run, target, record.inputs.scorer ?? undefined), path, target);
  return record;
}

/**
 * The stored analysis at `path` if it is this run's (`storedAnalysis` without the rows check, for
 * a caller that hashes the rows in a pass of its own and then calls `requireCurrentRows`).
 */
export function runAnalysisRecord(
  target: string,
  run: RunRecord,
  path: string = join(target, ANALYSIS_FILE),
): AnalysisRecord {
  const record = readAnalysisRecord(path, target);
  if (record.inputs.kind !== "study" || record.inputs.runId !== run.id) {
    throw new InputError(
      `${path} is not the analysis of run ${run.id} (it names ${record.inputs.runId ?? "a table file"}); ${rerun(target)}`,
    );
  }
  return record;
}

/** Refuses a stored analysis whose rows hash is not the store's rows hash now (`storedRowsHash`). */
export function requireCurrentRows(record: AnalysisRecord, rowsHash: string, path: string, target: string): void {
  if (rowsHash !== record.inputs.rows) {
    throw new InputError(
      `${path} is out of date: trials or their scores changed since it was written; ${rerun(target)}`,
    );
  }
}

function rerun(target: string): string {
  return `run 'parallax analyze ${target}' again`;
}
