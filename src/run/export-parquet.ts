/**
 * The tidy tables as Parquet (for pandas, polars and R), through hyparquet-writer: the same rows
 * as the CSV and JSONL exports (export.ts), with their types kept. Counts are INT32, rates, costs
 * and times DOUBLE, flags BOOLEAN, the rest UTF8 strings (nested values as JSON text); every
 * column is nullable. Parquet is written whole, so the table is gathered in memory first.
 */
import { writeFileSync } from "node:fs";
import { type ExportTable, exportTable } from "./export.js";
import type { TrialStore } from "./store/types.js";

type ParquetType = "INT32" | "DOUBLE" | "BOOLEAN" | "STRING";

/** Columns whose type is fixed whatever the data (an all-integer cost column stays DOUBLE). */
const DECLARED: Readonly<Record<string, ParquetType>> = {
  attempt: "INT32",
  input_tokens: "INT32",
  output_tokens: "INT32",
  calls: "INT32",
  execution: "INT32",
  seq: "INT32",
  outcome: "DOUBLE",
  cost_usd: "DOUBLE",
  latency_ms: "DOUBLE",
  simulated: "BOOLEAN",
  cached: "BOOLEAN",
};

export interface ParquetColumn {
  name: string;
  type: ParquetType;
  data: (string | number | boolean | null)[];
}

/** Rows as typed columns: declared types first, else inferred from the values (numbers, booleans, else text). */
export function parquetColumns(rows: readonly Record<string, unknown>[]): ParquetColumn[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const row of rows)
    for (const key of Object.keys(row))
      if (!seen.has(key)) {
        seen.add(key);
        names.push(key);
      }
  return names.map((name) => {
    const values = rows.map((r) => (r[name] === undefined ? null : r[name]));
    const type = DECLARED[name] ?? inferType(values);
    return { name, type, data: values.map((v) => cell(v, type)) };
  });
}

function inferType(values: readonly unknown[]): ParquetType {
  const present = values.filter((v) => v !== null);
  if (present.length > 0 && present.every((v) => typeof v === "boolean")) return "BOOLEAN";
  if (present.length > 0 && present.every((v) => typeof v === "number")) return "DOUBLE";
  return "STRING";
}

function cell(value: unknown, type: ParquetType): string | number | boolean | null {
  if (value === null) return null;
  if (type === "STRING") return typeof value === "string" ? value : JSON.stringify(value);
  if (type === "BOOLEAN") return Boolean(value);
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Writes the trials or calls table of a run to `file` as Parquet; returns the row count. */
export async function exportParquet(
  store: TrialStore,
  runId: string,
  facets: string[],
  table: ExportTable,
  file: string,
  options: { scorer?: string } = {},
): Promise<number> {
  const rows: Record<string, unknown>[] = [];
  // The JSONL rows are the export's one definition of a row; parsing them back keeps their types.
  await exportTable(store, runId, facets, table, "jsonl", (line) => rows.push(JSON.parse(line)), options);
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const buffer = parquetWriteBuffer({ columnData: parquetColumns(rows) });
  writeFileSync(file, new Uint8Array(buffer));
  return rows.length;
}
