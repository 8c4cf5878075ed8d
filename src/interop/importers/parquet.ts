/**
 * A Parallax trials table as Parquet (`export --format parquet`, perhaps filtered in pandas or
 * DuckDB since): one log per model and benchmark, one trial per row with its condition (the
 * columns outside the table contract are the facets), attempt, status, outcome and parse status.
 * The file's key-value metadata restores the provenance (and with it the SIMULATED label and the
 * study's name) and the facets' level order; a file that lost them keeps the rows' `simulated`
 * column and the levels in order of appearance.
 */
import { type ReadLimit, readBoundedBytes } from "../../core/guarded-read.js";
import type { StudyProvenance } from "../../contracts/provenance.js";
import type { ParseStatus } from "../../contracts/trial.js";
import { FACETS_KEY, PROVENANCE_KEY } from "../../run/export/parquet.js";
import { columnNames, trialsContract } from "../../run/export/table-contract.js";
import { filesOf, logError, logReadLimit } from "../read.js";
import type { ImportedLog, ImportedSample, Importer } from "../types.js";

/** The columns a trials table must have to be imported. */
const REQUIRED = [
  "run_id",
  "trial_id",
  "model",
  "benchmark",
  "item_id",
  "condition_hash",
  "attempt",
  "status",
  "outcome",
  "parse_status",
] as const;

const PARSE_STATUSES: readonly string[] = ["ok", "failed", "not_applicable"];

type Row = Record<string, unknown>;

export const parquetImporter: Importer = {
  name: "parquet",
  description: "a Parallax trials table written by export --format parquet",
  argument: "FILE...: .parquet trials tables, or folders holding them (searched recursively)",
  async read(paths, _mapping, options) {
    const seen = options?.onFile ?? (() => {});
    const logs = new Map<string, ImportedLog>();
    for (const { file, given } of filesOf(paths)) {
      if (!given && !file.toLowerCase().endsWith(".parquet")) {
        seen({ file, read: false, why: "not a .parquet file" });
        continue;
      }
      const rows = await readTable(file, logs, logReadLimit(options?.zipLimits));
      seen({ file, read: true, why: `Parallax trials table, ${rows} rows` });
    }
    if (logs.size === 0) throw logError(paths.join(", "), null, "no trials table found");
    return [...logs.values()];
  },
};

async function readTable(file: string, logs: Map<string, ImportedLog>, limit: ReadLimit): Promise<number> {
  const { parquetMetadata, parquetReadObjects, parquetSchema } = await import("hyparquet");
  const bytes = readBoundedBytes(file, limit); // a FIFO or device refused, the size bounded
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let metadata: ReturnType<typeof parquetMetadata>;
  try {
    metadata = parquetMetadata(buffer);
  } catch (error) {
    throw logError(file, null, `not a readable Parquet file (${(error as Error).message})`);
  }
  const columns = parquetSchema(metadata).children.map((c) => c.element.name);
  const missing = REQUIRED.filter((c) => !columns.includes(c));
  if (missing.length > 0)
    throw logError(file, null, `not a Parallax trials table: missing the columns ${missing.join(", ")}`);
  const kv = new Map((metadata.key_value_metadata ?? []).map((e) => [e.key, e.value ?? ""]));
  const provenance = kv.has(PROVENANCE_KEY) ? jsonOf<StudyProvenance>(file, PROVENANCE_KEY, kv) : undefined;
  const levels = kv.has(FACETS_KEY) ? jsonOf<Record<string, string[]>>(file, FACETS_KEY, kv) : undefined;
  const own = new Set(columnNames(trialsContract([])));
  const facets = columns.filter((c) => !own.has(c));
  const rows = (await parquetReadObjects({ file: buffer })) as Row[];
  rows.forEach((row, index) => {
    const entry = `row ${index + 1}`;
    const model = text(row, "model", file, entry);
    const benchmark = text(row, "benchmark", file, entry);
    const key = `${model}\u0000${benchmark}`;
    const log = logs.get(key) ?? newLog(file, { model, benchmark }, { provenance, levels, facets });
    logs.set(key, log);
    if (row.status === "pending") return;
    log.samples.push(sampleOf(row, entry, file, facets));
  });
  return rows.length;
}

function newLog(
  file: string,
  cell: { model: string; benchmark: string },
  /** What the table's metadata says: its provenance, its facets' levels, and its facet columns. */
  table: { provenance: StudyProvenance | undefined; levels: Record<string, string[]> | undefined; facets: string[] },
): ImportedLog {
  const { model, benchmark } = cell;
  const { provenance, levels, facets } = table;
  return {
    ...(provenance ? { provenance } : {}),
    file,
    framework: "parquet",
    model,
    benchmark,
    header: { provenance: provenance ?? null },
    generation: {},
    scorers: ["outcome"],
    samples: [],
    notes: [],
    // The table's model column is the study's: models compared as a facet are already one.
    comparesModels: false,
    facetLevels: Object.fromEntries(facets.map((f) => [f, levels?.[f] ?? []])),
  };
}

function sampleOf(row: Row, entry: string, file: string, facets: readonly string[]): ImportedSample {
  const attempt = row.attempt;
  if (typeof attempt !== "number" || !Number.isInteger(attempt) || attempt < 1)
    throw logError(file, entry, `column 'attempt': expected a positive integer, found ${JSON.stringify(attempt)}`);
  const status = row.status;
  if (status !== "finished" && status !== "errored")
    throw logError(
      file,
      entry,
      `column 'status': expected finished, errored or pending, found ${JSON.stringify(status)}`,
    );
  const parseStatus = row.parse_status;
  if (typeof parseStatus !== "string" || !PARSE_STATUSES.includes(parseStatus))
    throw logError(
      file,
      entry,
      `column 'parse_status': expected ${PARSE_STATUSES.join(", ")}, found ${JSON.stringify(parseStatus)}`,
    );
  const condition = Object.fromEntries(facets.map((f) => [f, text(row, f, file, entry)]));
  const inputTokens = row.input_tokens;
  const outputTokens = row.output_tokens;
  return {
    entry,
    item: text(row, "item_id", file, entry),
    attempt,
    input: null,
    target: [],
    choices: null,
    messages: [],
    output: null,
    scores:
      row.outcome === null || row.outcome === undefined
        ? []
        : [
            {
              scorer: "outcome",
              value: row.outcome,
              answer: typeof row.parsed_answer === "string" ? row.parsed_answer : null,
              explanation: null,
              field: "outcome",
              range: [0, 1],
              parseStatus: parseStatus as ParseStatus,
            },
          ],
    usage: typeof inputTokens === "number" && typeof outputTokens === "number" ? { inputTokens, outputTokens } : null,
    latencyMs: typeof row.latency_ms === "number" ? row.latency_ms : null,
    error: status === "errored" ? String(row.failure_bucket ?? "errored") : null,
    condition,
    simulated: row.simulated === true,
  };
}

function text(row: Row, column: string, file: string, entry: string): string {
  const value = row[column];
  if (typeof value !== "string" || value === "")
    throw logError(file, entry, `column '${column}': expected a non-empty text, found ${JSON.stringify(value)}`);
  return value;
}

function jsonOf<T>(file: string, key: string, kv: Map<string, string>): T {
  try {
    return JSON.parse(kv.get(key) ?? "") as T;
  } catch (error) {
    throw logError(file, `metadata ${key}`, `not valid JSON (${(error as Error).message})`);
  }
}
