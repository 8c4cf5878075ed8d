/**
 * The analysis table: one row per trial, normalised from either a study directory's store (the
 * same observations `parallax export` writes) or an imported tidy CSV / JSON-lines file. Every
 * facet of the condition is a column; a case (the cluster of the bootstrap and of the robust
 * standard errors) is a benchmark item, seen under every model, condition and attempt.
 */
import { extname } from "node:path";
import { facetLabel } from "../../contracts/condition.js";
import { AGENT_ONLY_COLUMNS, type AgentFacts, agentFactsOf } from "./agent-facts.js";
import { type AnalysisRow, analysisRow, clusterKey } from "./row.js";
import type { StudySpec } from "../../contracts/spec.js";
import { InputError } from "../../core/errors.js";
import { mebibytes, readBoundedText, UnreadablePathError } from "../../core/guarded-read.js";
import { parseCsv } from "../../datasets/csv.js";
import { conditionColumns, conditionValues } from "../../facets/registry.js";
import type { Observation, ScoreRecord } from "../../contracts/trial.js";
import {
  latestScoresByScorer,
  OBSERVATION_COLUMNS,
  toObservation,
  trialAuditAggregates,
  trialAuditColumns,
} from "../../run/export/export.js";
import { importedSimulated } from "../../run/export/provenance.js";
import { trialPages } from "../../run/store/pages.js";
import { agentColumnsOf } from "../../run/export/trial-agent-columns.js";
import { plainRow, TrialColumns } from "./trial-columns.js";
import type { RunRecord, TrialRow, TrialStore } from "../../run/store/types.js";

export { clusterKey } from "./row.js";
export type { AnalysisRow } from "./row.js";

/**
 * Item metadata by case (clusterKey(benchmark, item)): what the loader knows about an item that
 * some analyses need (BBQ's context condition, its unknown and biased options; XSTest's expected
 * behaviour). Kept beside the rows, not in them, so the analysed rows hash the same whether or
 * not the items could be re-read.
 */
export type ItemFacts = Map<string, Record<string, unknown>>;

export interface AnalysisTable {
  rows: AnalysisRow[];
  /** Facet columns, in spec (or file) order. */
  facets: string[];
  /** Level order per facet: the spec's order, else first appearance. */
  facetLevels: Record<string, string[]>;
  source: TableSource;
  /** Item metadata by case, when known (a study's items re-read, a tidy table's `meta.*` columns). */
  items?: ItemFacts;
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
  ...AGENT_ONLY_COLUMNS,
  "case_id",
  "parse_failed",
  "score",
  "scorer",
]);

/** A tidy table's item-metadata columns: `meta.<field>` (e.g. meta.context_condition). */
const META_PREFIX = "meta.";

/** Names a facet may not take: they would collide with the analysis table's own columns. */
const RESERVED = new Set(["model", "benchmark", "outcome", "cluster", "item", "attempt"]);

// ---------------------------------------------------------------- scorers

/** The scorer label of the outcome each trial got at run time (a row without `scorer`). */
export const RUN_TIME_SCORER = "run-time";

export function scorerOf(row: AnalysisRow): string {
  return row.scorer ?? RUN_TIME_SCORER;
}

/** The scorers whose outcomes the table holds, run-time first. */
export function tableScorers(table: AnalysisTable): string[] {
  const names = new Set(table.rows.map(scorerOf));
  const stored = [...names].filter((n) => n !== RUN_TIME_SCORER).sort();
  return names.has(RUN_TIME_SCORER) ? [RUN_TIME_SCORER, ...stored] : stored;
}

/**
 * One scorer's rows: the named one, else the run-time outcome (or the only scorer present).
 * A scorer the table does not hold is an error naming the ones it does.
 */
export function selectScorer(table: AnalysisTable, scorer?: string): AnalysisTable {
  const scorers = tableScorers(table);
  const chosen = chosenScorer(scorers, scorer);
  requireScorer(table.source, scorers, chosen);
  const rows = scorers.length === 1 ? table.rows : table.rows.filter((r) => scorerOf(r) === chosen);
  return { ...table, rows, source: { ...table.source, scorer: chosen === RUN_TIME_SCORER ? null : chosen } };
}

/** The scorer a table's rows are taken from: the named one, else run-time (or the only scorer). */
export function chosenScorer(scorers: readonly string[], scorer?: string): string {
  return scorer ?? (scorers.includes(RUN_TIME_SCORER) || scorers.length !== 1 ? RUN_TIME_SCORER : scorers[0]);
}

/** Refuses a scorer the table does not hold, naming the ones it does. */
export function requireScorer(
  source: Pick<TableSource, "kind" | "path">,
  scorers: readonly string[],
  chosen: string,
): void {
  if (scorers.includes(chosen)) return;
  throw new InputError(
    `${source.path}: no outcomes from scorer '${chosen}'; scorers: ${scorers.join(", ")}${
      source.kind === "study" ? ` (store one with 'parallax score ${source.path} --scorer ${chosen}')` : ""
    }`,
  );
}

// ---------------------------------------------------------------- from a study directory

/** One scorer's outcome of every trial of the run (default: the run-time outcome). */
export async function loadStudyTable(
  store: TrialStore,
  run: RunRecord,
  path: string,
  scorer?: string,
): Promise<AnalysisTable> {
  return selectScorer(await loadScoredStudyTable(store, run, path), scorer);
}

/**
 * Reads every trial of the run, page by page, as exportTable does: the run-time outcome of each
 * trial and, as further rows with `scorer` set, every stored scorer's latest score of it (a trial
 * a scorer has not scored gets a row without outcome).
 */
export async function loadScoredStudyTable(
  store: TrialStore,
  run: RunRecord,
  path: string,
  options: {
    /** Also given each page's trials (as `listTrialFacts` has them), so other readers share the one read. */
    onTrials?: (trials: readonly TrialRow[]) => Promise<void>;
  } = {},
): Promise<AnalysisTable> {
  // Each scorer's rows in columns of their own (the run-time rows first), read as views.
  const runTime = new TrialColumns();
  const runTimeRows: AnalysisRow[] = [];
  const stored = new Map<string, { columns: TrialColumns; rows: AnalysisRow[] }>();
  let pending = 0;
  let firstFinishedAt: string | null = null;
  // The rows need none of the trials' free text: the narrow read.
  for await (const page of scoredTablePages(store, run, TABLE_PAGE_SIZE, { facts: true })) {
    await options.onTrials?.(page.trials);
    // A scorer first seen on this page has not scored the trials read so far.
    for (const name of page.newScorers) {
      const columns = new TrialColumns();
      stored.set(name, { columns, rows: runTimeRows.map((r) => columns.push(unscoredRow(plainRow(r), name))) });
    }
    for (const row of page.runTime) runTimeRows.push(runTime.push(row));
    for (const [name, rows] of page.byScorer) {
      const scored = stored.get(name)!;
      for (const row of rows) scored.rows.push(scored.columns.push(row));
    }
    for (const trial of page.trials) {
      if (trial.status === "pending") pending++;
      if (trial.status === "finished" && trial.updatedAt && (!firstFinishedAt || trial.updatedAt < firstFinishedAt)) {
        firstFinishedAt = trial.updatedAt;
      }
    }
  }
  const rows = runTimeRows.concat(...[...stored.values()].map((scored) => scored.rows));
  return {
    rows,
    facets: conditionColumns(run.spec.conditions),
    facetLevels: specFacetLevels(run.spec),
    source: {
      kind: "study",
      path,
      runId: run.id,
      study: run.study,
      // The study's provenance: a simulated respondent's trials, or an import of a simulated study's export.
      simulated: runTimeRows.some((r) => r.simulated) || importedSimulated(run.imported),
      pending,
      firstFinishedAt,
      scorer: null,
    },
  };
}

/**
 * Trials per store page while loading the table: a page's trials and rows are garbage once their
 * values are in the columns, and a small page dies in V8's young generation. Pages of 2,000
 * outlived scavenges and filled old space with dead pages: `analyze`'s peak RSS while loading the
 * SafetyRepro design was 820 MB at 2,000 trials a page and 390 MB at 100, in the same time.
 */
export const TABLE_PAGE_SIZE = 100;

/** One store page of the scored table (`scoredTablePages`). */
export interface ScoredTablePage {
  /** The page's trials, pending ones included. */
  trials: TrialRow[];
  /** The run-time row of each trial that is not pending. */
  runTime: AnalysisRow[];
  /** Every scorer seen so far (this page included) -> its row of each trial that is not pending. */
  byScorer: Map<string, AnalysisRow[]>;
  /** Scorers first seen on this page: their rows of the earlier pages' trials are `unscoredRow`s. */
  newScorers: string[];
}

/**
 * The rows of the scored study table a store page (2,000 trials by default) at a time, in trial
 * id order: the one row builder of `loadScoredStudyTable` and of the stored analysis's paged rows
 * hash (rows-hash.ts), so both see the same rows. A reader that keeps no rows asks for smaller
 * pages, so that a page dies young instead of being promoted to V8's old space as garbage.
 */
export async function* scoredTablePages(
  store: TrialStore,
  run: RunRecord,
  pageSize = 2_000,
  options: {
    /** Read the trials without their free text (`listTrialFacts`): the rows are the same. */
    facts?: boolean;
  } = {},
): AsyncGenerator<ScoredTablePage> {
  const facets = conditionColumns(run.spec.conditions);
  const known: string[] = [];
  const compact = rowCompactor();
  const pages = options.facts ? trialFactPages(store, run.id, pageSize) : trialPages(store, run.id, { pageSize });
  // A run scored only at run time has no stored scores: no per-page query then.
  const stored = await store.hasScores(run.id);
  for await (const trials of pages) {
    const scores = stored ? await latestScoresByScorer(store, run.id, trials) : new Map();
    // The per-call propagation checks, summarised per trial as the trials export does (the
    // integrity gate reads them); the calls' text is not read.
    const callsOf = await store.listCallFactsOf(
      run.id,
      trials.map((t) => t.id),
    );
    const newScorers = [...scores.keys()].filter((name) => !known.includes(name));
    known.push(...newScorers);
    const runTime: AnalysisRow[] = [];
    const byScorer = new Map<string, AnalysisRow[]>(known.map((name) => [name, []]));
    for (const trial of trials) {
      if (trial.status === "pending") continue;
      const calls = callsOf.get(trial.id) ?? [];
      // The per-call checks and, for an agent trial, its agent columns, as the trials export has them.
      const audit = Object.assign(trialAuditAggregates(calls), agentColumnsOf(trial, calls));
      runTime.push(compact(trialRow(trial, facets, { audit })));
      for (const [name, rows] of byScorer)
        rows.push(
          compact(trialRow(trial, facets, { score: scores.get(name)?.get(trial.id) ?? null, scorer: name, audit })),
        );
    }
    yield { trials, runTime, byScorer, newScorers };
  }
}

/** A run's trials in id order without their free text (`listTrialFacts`), a page at a time. */
async function* trialFactPages(store: TrialStore, runId: string, pageSize: number): AsyncGenerator<TrialRow[]> {
  let afterId: string | undefined;
  for (;;) {
    const page = await store.listTrialFacts(runId, { limit: pageSize, afterId });
    if (page.length === 0) return;
    yield page;
    afterId = page[page.length - 1].id;
  }
}

/**
 * Makes rows share what repeats across trials: one facets record per condition, one audit record
 * per distinct set of values, one copy of each name, item id and case key. A study holds many
 * trials per condition and item, so a held table costs little more than its trial ids. Rows are
 * read-only to every analysis, so sharing changes no value.
 */
export function rowCompactor(): (row: AnalysisRow) => AnalysisRow {
  const strings = new Map<string, string>();
  const facetRecords = new Map<string, Record<string, string>>();
  const audits = new Map<string, Record<string, number>>();
  const intern = (value: string): string => {
    const known = strings.get(value);
    if (known !== undefined) return known;
    strings.set(value, value);
    return value;
  };
  const shared = <T extends object>(records: Map<string, T>, record: T): T => {
    const key = JSON.stringify(record);
    const known = records.get(key);
    if (known !== undefined) return known;
    records.set(key, record);
    return record;
  };
  // A condition's facets record found by its values, one map per facet in order: no JSON key per row.
  const facetTrie = new Map<string, unknown>();
  const sharedFacets = (facets: Record<string, string>): Record<string, string> => {
    let node = facetTrie;
    for (const key in facets) {
      const value = facets[key];
      // Only string values are told apart this way; anything else is keyed as JSON.
      if (typeof value !== "string") return shared(facetRecords, facets);
      let next = node.get(key) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(key, next);
      }
      let child = next.get(value) as Map<string, unknown> | undefined;
      if (child === undefined) {
        child = new Map();
        next.set(value, child);
      }
      node = child;
    }
    let record = node.get(RECORD) as Record<string, string> | undefined;
    if (record === undefined) {
      record = shared(facetRecords, facets);
      node.set(RECORD, record);
    }
    return record;
  };
  return (row) => {
    row.model = intern(row.model);
    row.benchmark = intern(row.benchmark);
    row.item = intern(row.item);
    row.cluster = intern(row.cluster);
    row.facets = sharedFacets(row.facets);
    if (row.scorer !== undefined) row.scorer = intern(row.scorer);
    if (row.audit !== undefined) row.audit = shared(audits, row.audit);
    if (row.answer !== undefined) row.answer = intern(row.answer);
    if (row.modelRevision !== undefined) row.modelRevision = intern(row.modelRevision);
    return row;
  };
}

/** The entry of a facets trie's node that holds its record (no facet is named by a lone NUL). */
const RECORD = "\u0000";

/** A scorer's row of a trial read before that scorer was first seen: the run-time row, unscored. */
export function unscoredRow(runTimeRow: AnalysisRow, scorer: string): AnalysisRow {
  return Object.assign({}, runTimeRow, { scorer, outcome: null, parseFailed: false });
}

/** Scorer -> trial -> the most recent score of that scorer (any version) for the page's trials. */
/** The spec's declared level order of every facet, as export labels them. */
export function specFacetLevels(spec: StudySpec): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(spec.conditions.facets).map(([facet, values]) => [
      facet,
      conditionValues(facet, values).map(facetLabel),
    ]),
  );
}

/**
 * A stored trial as an analysis row, through the export's observation (the one conversion every
 * reader uses: analysis, the report's trial page). `score` replaces the run-time outcome with
 * that scorer's (null: the scorer did not score the trial); `scorer` labels the row.
 */
export function trialRow(
  trial: TrialRow,
  facets: string[],
  options: {
    score?: ScoreRecord | null;
    scorer?: string;
    /** The trial's export columns from its calls: the per-call checks' aggregates, the agent columns. */
    audit?: Record<string, number | boolean | string | null>;
  } = {},
): AnalysisRow {
  const { score, scorer, audit = {} } = options;
  // Object.assign onto the fresh observation, not `{ ...a, ...b }`: Node 20's V8 allocates an object
  // literal that adds keys after a spread in old space, so each row was garbage only a major GC
  // frees (report's peak RSS grew with the trial count; docs/PERFORMANCE.md).
  return fromObservation(Object.assign(toObservation(trial, facets, score), audit), facets, scorer);
}

export function fromObservation(obs: Observation, facets: readonly string[], scorer?: string): AnalysisRow {
  return analysisRow({
    trialId: obs.trial_id,
    model: obs.model,
    benchmark: obs.benchmark,
    item: obs.item_id,
    attempt: obs.attempt,
    facets: Object.fromEntries(facets.map((f) => [f, String(obs[f] ?? "")])),
    outcome: obs.outcome,
    ...(obs.parsed_answer ? { answer: obs.parsed_answer } : {}),
    parseFailed: obs.parse_status === "failed",
    errored: obs.status === "errored",
    simulated: obs.simulated,
    ...(scorer === undefined ? {} : { scorer }),
    ...(obs.model_revision ? { modelRevision: String(obs.model_revision) } : {}),
    ...auditOf(obs as unknown as Record<string, unknown>),
    ...agentOf(obs as unknown as Record<string, unknown>),
  });
}

/** The recorded audit shares of a row (numbers only; a blank or missing column is not recorded). */
function auditOf(values: Record<string, unknown>): { audit?: Record<string, number> } {
  const audit: Record<string, number> = {};
  for (const column of trialAuditColumns()) {
    const raw = values[column];
    if (raw === null || raw === undefined || String(raw).trim() === "") continue;
    const value = Number(raw);
    if (Number.isFinite(value)) audit[column] = value;
  }
  return Object.keys(audit).length ? { audit } : {};
}

function agentOf(values: Record<string, unknown>, source?: { file: string; line: number }): { agent?: AgentFacts } {
  const agent = agentFactsOf(values, source);
  return agent ? { agent } : {};
}

// ---------------------------------------------------------------- from a tidy file

interface RawRecord {
  values: Record<string, unknown>;
  line: number;
}

/** A tidy table is decoded as one string: V8's longest is about 512 MiB. */
const TIDY_TABLE_LIMIT = { bytes: mebibytes(512), what: "a tidy table (split it by model or benchmark)" };

/** Reads a tidy CSV or JSON-lines table (docs/ANALYSIS.md lists the columns). */
export function readTidyTable(path: string): AnalysisTable {
  let text: string;
  try {
    text = readBoundedText(path, TIDY_TABLE_LIMIT);
  } catch (error) {
    if (error instanceof UnreadablePathError) throw new InputError(`cannot read ${path}: ${error.reason}`);
    throw error;
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
  const facets = header.filter((h) => !NON_FACET_COLUMNS.has(h) && !h.startsWith(META_PREFIX));
  const metaColumns = header.filter((h) => h.startsWith(META_PREFIX));
  const reserved = facets.filter((f) => RESERVED.has(f));
  if (reserved.length > 0) throw new InputError(`${file}: column name(s) ${reserved.join(", ")} are reserved`);
  const rows = records
    .filter((r) => text(r.values.status) !== "pending")
    .map((r) => tidyRow(r, facets, file, itemColumn!));
  if (rows.length === 0) throw new InputError(`${file}: no data rows`);
  const facetLevels: Record<string, string[]> = {};
  for (const f of facets) facetLevels[f] = [...new Set(rows.map((r) => r.facets[f]))];
  const items: ItemFacts = new Map();
  if (metaColumns.length > 0) {
    for (const r of records) {
      const key = clusterKey(text(r.values.benchmark), text(r.values[itemColumn!]));
      const facts = items.get(key) ?? {};
      for (const c of metaColumns) if (text(r.values[c]) !== "") facts[c.slice(META_PREFIX.length)] = text(r.values[c]);
      items.set(key, facts);
    }
  }
  return {
    rows,
    facets,
    facetLevels,
    ...(items.size > 0 ? { items } : {}),
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
  const outcome = parseOutcome(text(v.outcome), () => fail("outcome", "0 or 1 (empty when unscored)"));
  const attemptText = text(v.attempt) || "1";
  const attempt = Number(attemptText);
  if (!Number.isInteger(attempt) || attempt < 1) fail("attempt", "a positive integer");
  return analysisRow({
    trialId: text(v.trial_id) || null,
    model: required("model"),
    benchmark: required("benchmark"),
    item: required(itemColumn),
    attempt,
    facets: Object.fromEntries(facets.map((f) => [f, required(f)])),
    outcome,
    parseFailed: parseFlag(v, fail),
    errored,
    simulated: flag(text(v.simulated)) === true,
    ...(text(v.scorer) ? { scorer: text(v.scorer) } : {}),
    ...(text(v.parsed_answer) ? { answer: text(v.parsed_answer) } : {}),
    ...auditOf(v),
    ...agentOf(v, { file, line: record.line }),
  });
}

function parseOutcome(value: string, fail: () => never): number | null {
  if (value === "") return null;
  if (value === "1" || value === "true" || value === "1.0") return 1;
  if (value === "0" || value === "false" || value === "0.0") return 0;
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
