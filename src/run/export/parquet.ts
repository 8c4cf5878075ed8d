/**
 * The tidy tables as Parquet (for pandas, polars and R), through hyparquet-writer: the same rows
 * and columns as the CSV and JSONL exports (export.ts), each column with the type the table
 * contract declares (table-contract.ts), whatever the data: integers INT32, numbers DOUBLE, flags
 * BOOLEAN, the rest UTF8 strings (nested values as JSON text). Every column is nullable; a column
 * a study leaves empty is all null with its declared type. The study's provenance (and its
 * SIMULATED label) is in the file's key-value metadata. Parquet is written whole, so the table
 * is gathered in memory first.
 */
import { writeFileSync } from "node:fs";
import { facetLabel } from "../../contracts/condition.js";
import type { StudyProvenance } from "../../contracts/provenance.js";
import { conditionValues } from "../../facets/registry.js";
import type { ColumnType, TableColumn } from "../../contracts/table-column.js";
import { type ExportRequest, exportTable } from "./export.js";
import { studyProvenance } from "./provenance.js";
import type { TrialStore } from "../store/types.js";
import { callsContract, trialsContract } from "./table-contract.js";

type ParquetType = "INT32" | "DOUBLE" | "BOOLEAN" | "STRING";

export const PARQUET_TYPE: Readonly<Record<ColumnType, ParquetType>> = {
  integer: "INT32",
  number: "DOUBLE",
  boolean: "BOOLEAN",
  text: "STRING",
};

/** The key-value metadata keys: the provenance as JSON, and the label on its own for a quick look. */
export const PROVENANCE_KEY = "parallax.provenance";
export const SIMULATED_KEY = "parallax.simulated";
/** The facets and their levels in the spec's order (the first level is the default reference). */
export const FACETS_KEY = "parallax.facets";

export interface ParquetColumn {
  name: string;
  type: ParquetType;
  nullable: true;
  data: (string | number | boolean | null)[];
}

/** Rows as the contract's typed columns, in its order; a key of a row the contract lacks is an error. */
export function parquetColumns(
  rows: readonly Record<string, unknown>[],
  contract: readonly TableColumn[],
): ParquetColumn[] {
  const declared = new Set(contract.map((c) => c.name));
  for (const row of rows)
    for (const key of Object.keys(row))
      if (!declared.has(key))
        throw new Error(`column '${key}' is not in the table contract (run/export/table-contract.ts)`);
  return contract.map(({ name, type }) => {
    const parquetType = PARQUET_TYPE[type];
    return { name, type: parquetType, nullable: true, data: rows.map((r) => cell(r[name], parquetType, name)) };
  });
}

function cell(value: unknown, type: ParquetType, column: string): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (type === "STRING") return typeof value === "string" ? value : JSON.stringify(value);
  if (type === "BOOLEAN") {
    if (typeof value !== "boolean")
      throw new Error(`column '${column}': expected a boolean, found ${JSON.stringify(value)}`);
    return value;
  }
  const n = typeof value === "number" ? value : Number.NaN;
  if (!Number.isFinite(n) || (type === "INT32" && !Number.isInteger(n)))
    throw new Error(
      `column '${column}': expected ${type === "INT32" ? "an integer" : "a number"}, found ${JSON.stringify(value)}`,
    );
  return n;
}

/** The file's key-value metadata: the provenance, and `parallax.simulated` as "true" or "false". */
export function provenanceMetadata(provenance: StudyProvenance): { key: string; value: string }[] {
  return [
    { key: PROVENANCE_KEY, value: JSON.stringify(provenance) },
    { key: SIMULATED_KEY, value: String(provenance.simulated) },
  ];
}

/** Writes the trials or calls table of a run to `file` as Parquet; returns the row count. */
export async function exportParquet(store: TrialStore, request: ExportRequest, file: string): Promise<number> {
  const { runId, facets, table } = request;
  const rows: Record<string, unknown>[] = [];
  // The JSONL rows are the export's one definition of a row; parsing them back keeps their types.
  await exportTable(store, { ...request, format: "jsonl" }, (line) => rows.push(JSON.parse(line)));
  const run = await store.getRun(runId);
  if (!run) throw new Error(`no run ${runId} in the store`);
  const contract = table === "trials" ? trialsContract(facets) : callsContract();
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const declared = run.spec.conditions.facets;
  const levels = Object.fromEntries(
    facets.map((f) => [f, declared[f] ? conditionValues(f, declared[f]).map(facetLabel) : []]),
  );
  const buffer = parquetWriteBuffer({
    columnData: parquetColumns(rows, contract),
    kvMetadata: [
      ...provenanceMetadata(await studyProvenance(store, run)),
      { key: FACETS_KEY, value: JSON.stringify(levels) },
    ],
  });
  writeFileSync(file, new Uint8Array(buffer));
  return rows.length;
}
