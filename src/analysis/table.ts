/**
 * The analysis table: one row per trial, normalised from either a study directory's store (the
 * same observations `parallax export` writes) or an imported tidy CSV / JSON-lines file. Every
 * facet of the condition is a column; a case (the cluster of the bootstrap and of the robust
 * standard errors) is a benchmark item, seen under every model, condition and attempt.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { facetLabel } from "../contracts/condition.js";
import type { StudySpec } from "../contracts/spec.js";
import type { Observation } from "../contracts/trial.js";
import { InputError } from "../core/errors.js";
import { parseCsv } from "../datasets/csv.js";
import { OBSERVATION_COLUMNS, latestScores, toObservation, trialAuditColumns } from "../run/export.js";
import type { RunRecord, TrialStore } from "../run/store/types.js";
import { trialPages } from "../run/store/pages.js";

export interface AnalysisRow {
  trialId: string | null;
  model: string;
  benchmark: string;
  item: string;
  /** benchmark + item: item ids need only be unique within a benchmark. */
  cluster: string;
  attempt: number;
  /** Facet name -> value label. */
  facets: Record<string, string>;
  /** Score 1 (safe/correct) or 0; null when the trial errored or was not scored. */
  outcome: number | null;
  parseFailed: boolean;
  errored: boolean;
  simulated: boolean;
}

export interface AnalysisTable {
  rows: AnalysisRow[];
  /** Facet columns, in spec (or file) order. */
  facets: string[];
  /** Level order per facet: the spec's order, else first appearance. */
  facetLevels: Record<string, string[]>;
  source: TableSource;
}

export interface TableSource {
  kind: "study" | "table";
  /** Study directory or table file. */
  path: string;
  runId: string | null;
  study: string | null;
  /** Any row comes from a simulated respondent. */
  simulated: boolean;
  /** Trials not yet run (study directories only). */
  pending: number;
  /** When the first trial finished (study directories only): a pre-registration must precede it. */
  firstFinishedAt: string | null;
  /** The stored scorer the outcomes come from (`parallax score`), or null for the run-time score. */
  scorer: string | null;
}

/** Column names that are not facets (the export's own columns plus the accepted aliases). */
const NON_FACET_COLUMNS = new Set<string>([
  ...OBSERVATION_COLUMNS,
  ...trialAuditColumns(),
  "case_id",
  "parse_failed",
  "score",
]);

/** Names a facet may not take: they would collide with the analysis table's own columns. */
const RESERVED = new Set(["model", "benchmark", "outcome", "cluster", "item", "attempt"]);

export function clusterKey(benchmark: string, item: string): string {
  return `${benchmark}\u0000${item}`;
}

// ---------------------------------------------------------------- from a study directory

/** Reads every trial of the run, page by page, as exportTable does. */
export async function loadStudyTable(
  store: TrialStore,
  run: RunRecord,
  path: string,
  scorer?: string,
): Promise<AnalysisTable> {
  const facets = Object.keys(run.spec.conditions.facets);
  const rows: AnalysisRow[] = [];
  let pending = 0;
  let firstFinishedAt: string | null = null;
  for await (const page of trialPages(store, run.id, { pageSize: 2_000 })) {
    // With a scorer, a trial it has not scored gets no outcome (unscored), never the run-time one.
    const scores = scorer === undefined ? undefined : await latestScores(store, run.id, scorer, page);
    for (const trial of page) {
      if (trial.status === "pending") pending++;
      else rows.push(fromObservation(toObservation(trial, facets, scores && (scores.get(trial.id) ?? null)), facets));
      if (trial.status === "finished" && trial.updatedAt && (!firstFinishedAt || trial.updatedAt < firstFinishedAt)) {
        firstFinishedAt = trial.updatedAt;
      }
    }
  }
  return {
    rows,
    facets,
    facetLevels: specFacetLevels(run.spec),
    source: {
      kind: "study",
      path,
      runId: run.id,
      study: run.study,
      simulated: rows.some((r) => r.simulated),
      pending,
      firstFinishedAt,
      scorer: scorer ?? null,
    },
  };
}

/** The spec's declared level order of every facet, as export labels them. */
export function specFacetLevels(spec: StudySpec): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(spec.conditions.facets).map(([facet, values]) => [facet, values.map(facetLabel)]),
  );
}

export function fromObservation(obs: Observation, facets: readonly string[]): AnalysisRow {
  const errored = obs.status === "errored";
  return {
    trialId: obs.trial_id,
    model: obs.model,
    benchmark: obs.benchmark,
    item: obs.item_id,
    cluster: clusterKey(obs.benchmark, obs.item_id),
    attempt: obs.attempt,
    facets: Object.fromEntries(facets.map((f) => [f, String(obs[f] ?? "")])),
    outcome: errored ? null : obs.outcome,
    parseFailed: obs.parse_status === "failed",
    errored,
    simulated: obs.simulated,
  };
}

// ---------------------------------------------------------------- from a tidy file

interface RawRecord {
  values: Record<string, unknown>;
  line: number;
}

/** Reads a tidy CSV or JSON-lines table (docs/ANALYSIS.md lists the columns). */
export function readTidyTable(path: string): AnalysisTable {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${path}: ${code === "ENOENT" ? "no such file" : String(error)}`);
  }
  const jsonl = /\.jsonl?$/i.test(extname(path));
  const { header, records } = jsonl ? jsonLines(text, path) : csvRecords(text, path);
  return tidyTable(header, records, path);
}

function csvRecords(text: string, file: string): { header: string[]; records: RawRecord[] } {
  const [head, ...data] = parseCsv(text, file);
  if (!head) throw new InputError(`${file}: empty file (no header row)`);
  const header = head.fields.map((h) => h.trim());
  const records = data.map((record) => {
    if (record.fields.length !== header.length) {
      throw new InputError(
        `${file}:${record.line}: expected ${header.length} fields (${header.join(", ")}), found ${record.fields.length}`,
      );
    }
    return { values: Object.fromEntries(header.map((h, i) => [h, record.fields[i]])), line: record.line };
  });
  return { header, records };
}

function jsonLines(text: string, file: string): { header: string[]; records: RawRecord[] } {
  const records: RawRecord[] = [];
  const header = new Set<string>();
  text.split(/\r?\n/).forEach((lineText, index) => {
    if (lineText.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(lineText);
    } catch (error) {
      throw new InputError(`${file}:${index + 1}: not valid JSON (${(error as Error).message})`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new InputError(`${file}:${index + 1}: expected a JSON object per line`);
    }
    for (const key of Object.keys(value)) header.add(key);
    records.push({ values: value as Record<string, unknown>, line: index + 1 });
  });
  return { header: [...header], records };
}

function tidyTable(header: string[], records: RawRecord[], file: string): AnalysisTable {
  const itemColumn = header.includes("item_id") ? "item_id" : header.includes("case_id") ? "case_id" : undefined;
  const missing = ["model", "benchmark", "outcome"].filter((c) => !header.includes(c));
  if (!itemColumn) missing.push("item_id (or case_id)");
  if (missing.length > 0) {
    throw new InputError(
      `${file}: missing column(s) ${missing.join(", ")}; found ${header.join(", ")} (see docs/ANALYSIS.md)`,
    );
  }
  const facets = header.filter((h) => !NON_FACET_COLUMNS.has(h));
  const reserved = facets.filter((f) => RESERVED.has(f));
  if (reserved.length > 0) throw new InputError(`${file}: column name(s) ${reserved.join(", ")} are reserved`);
  const rows = records
    .filter((r) => text(r.values.status) !== "pending")
    .map((r) => tidyRow(r, facets, file, itemColumn!));
  if (rows.length === 0) throw new InputError(`${file}: no data rows`);
  const facetLevels: Record<string, string[]> = {};
  for (const f of facets) facetLevels[f] = [...new Set(rows.map((r) => r.facets[f]))];
  return {
    rows,
    facets,
    facetLevels,
    source: {
      kind: "table",
      path: file,
      runId: null,
      study: null,
      simulated: rows.some((r) => r.simulated),
      pending: records.length - rows.length,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

function text(value: unknown): string {
  return value === null || value === undefined ? "" : String(value).trim();
}

function tidyRow(record: RawRecord, facets: string[], file: string, itemColumn: string): AnalysisRow {
  const v = record.values;
  const fail = (column: string, expected: string): never => {
    throw new InputError(
      `${file}:${record.line}: column '${column}': expected ${expected}, found '${text(v[column])}'`,
    );
  };
  const required = (column: string) => text(v[column]) || fail(column, "a non-empty value");
  const status = text(v.status) || "finished";
  if (status !== "finished" && status !== "errored") fail("status", "finished, errored or pending");
  const errored = status === "errored";
  const outcome = parseOutcome(text(v.outcome), errored, () => fail("outcome", "0 or 1 (empty when unscored)"));
  const attemptText = text(v.attempt) || "1";
  const attempt = Number(attemptText);
  if (!Number.isInteger(attempt) || attempt < 1) fail("attempt", "a positive integer");
  const benchmark = required("benchmark");
  const item = required(itemColumn);
  return {
    trialId: text(v.trial_id) || null,
    model: required("model"),
    benchmark,
    item,
    cluster: clusterKey(benchmark, item),
    attempt,
    facets: Object.fromEntries(facets.map((f) => [f, required(f)])),
    outcome,
    parseFailed: parseFlag(v, fail),
    errored,
    simulated: flag(text(v.simulated)) === true,
  };
}

function parseOutcome(value: string, errored: boolean, fail: () => never): number | null {
  if (value === "") return null;
  if (value === "1" || value === "true" || value === "1.0") return errored ? null : 1;
  if (value === "0" || value === "false" || value === "0.0") return errored ? null : 0;
  return fail();
}

function flag(value: string): boolean | undefined {
  if (["1", "true", "yes"].includes(value.toLowerCase())) return true;
  if (["0", "false", "no", ""].includes(value.toLowerCase())) return false;
  return undefined;
}

/** parse_status (ok | failed | not_applicable) or parse_failed (0/1); absent means parsed. */
function parseFlag(v: Record<string, unknown>, fail: (column: string, expected: string) => never): boolean {
  const status = text(v.parse_status);
  if (status !== "") {
    if (!["ok", "failed", "not_applicable"].includes(status)) fail("parse_status", "ok, failed or not_applicable");
    return status === "failed";
  }
  const failed = flag(text(v.parse_failed));
  if (failed === undefined) return fail("parse_failed", "0 or 1");
  return failed;
}
