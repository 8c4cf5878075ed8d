/**
 * Writes the column tables of docs/INTEROP.md (the trials and calls tables of `parallax export`
 * with each column's type and Parquet type), generated from the table contract
 * (src/run/export/table-contract.ts) so the two cannot disagree (tests/interop/table-contract.test.ts
 * fails on drift). Usage: npm run docs:columns
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { TableColumn } from "../src/contracts/table-column.js";
import { PARQUET_TYPE } from "../src/run/export/parquet.js";
import { callsContract, trialsContract } from "../src/run/export/table-contract.js";

export const INTEROP_PATH = fileURLToPath(new URL("../docs/INTEROP.md", import.meta.url));

/** The placeholder a study's facet columns stand under in the trials table. */
const FACET = "<facet>";

function markdownTable(columns: readonly TableColumn[]): string {
  const rows = columns.map((c) => {
    const parquet = PARQUET_TYPE[c.type] === "STRING" ? "UTF8 (BYTE_ARRAY)" : PARQUET_TYPE[c.type];
    const name = c.name === FACET ? "each facet" : `\`${c.name}\``;
    return `| ${name} | ${c.type} | ${parquet} | ${c.what} |`;
  });
  return ["| column | type | Parquet | what |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

const SECTIONS: Record<string, () => readonly TableColumn[]> = {
  trials: () => trialsContract([FACET]),
  calls: () => callsContract(),
};

/** INTEROP.md with every generated table replaced by the contract's current one. */
export function renderInterop(text: string): string {
  let out = text;
  for (const [table, columns] of Object.entries(SECTIONS)) {
    const start = `<!-- table-contract:${table} start (npm run docs:columns) -->`;
    const end = `<!-- table-contract:${table} end -->`;
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${INTEROP_PATH}: no '${start}' ... '${end}' markers`);
    out = `${out.slice(0, from + start.length)}\n${markdownTable(columns())}\n${out.slice(to)}`;
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(INTEROP_PATH, renderInterop(readFileSync(INTEROP_PATH, "utf8")));
  process.stdout.write(`wrote the column tables of ${INTEROP_PATH}\n`);
}
