/**
 * The exported tables' column types come from one contract (src/run/export/table-contract.ts), never from
 * a study's data: the four quickstarts, run on the simulated panel and exported to Parquet, have
 * every column of the contract (the facets aside) with the type docs/INTEROP.md's generated table
 * gives it, so a column shared by two studies has one type; a column a study leaves empty is all
 * null, and "none" is a null, never an empty string. The doc's tables are the contract's current
 * ones. The same runs show that the kind cards `analyze` writes (the GRID card, the audit gate)
 * carry the SIMULATED notice.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { conditionColumns } from "../../src/facets/registry.js";
import { exportParquet, SIMULATED_KEY } from "../../src/run/export/parquet.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { callsContract, columnNames, trialsContract } from "../../src/run/export/table-contract.js";
import { INTEROP_PATH, renderInterop } from "../../scripts/write-interop-columns.js";
import { sharedDir } from "../helpers/llama-model.js";
import { runCli } from "../helpers/cli.js";
import { needsBubblewrap } from "../helpers/prerequisites.js";

const EXAMPLES = resolve(import.meta.dirname, "..", "..", "examples");
const TABLES = ["trials", "calls"] as const;
type Table = (typeof TABLES)[number];

const work = mkdtempSync(join(tmpdir(), "parallax-contract-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** A Parquet column's type as a reader sees it: physical type, and the logical one for strings. */
type FileType = string;

/** docs/INTEROP.md's generated table of `table`: column name -> the Parquet type it documents. */
function documentedTypes(table: Table): Map<string, FileType> {
  const text = readFileSync(INTEROP_PATH, "utf8");
  const start = text.indexOf(`<!-- table-contract:${table} start`);
  const end = text.indexOf(`<!-- table-contract:${table} end -->`);
  assert.ok(start >= 0 && end > start, `docs/INTEROP.md has the ${table} table's markers`);
  const types = new Map<string, FileType>();
  for (const line of text.slice(start, end).split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const name = /^`(.+)`$/.exec(cells[1] ?? "")?.[1];
    if (!name) continue;
    types.set(name, cells[3] === "UTF8 (BYTE_ARRAY)" ? "BYTE_ARRAY/UTF8" : cells[3]);
  }
  assert.ok(types.size > 10, `the ${table} table lists its columns (${types.size})`);
  return types;
}

interface Exported {
  types: Map<string, FileType>;
  order: string[];
  rows: Record<string, unknown>[];
  facets: string[];
  simulated: string | undefined;
}

/** Runs an example on the simulated panel and exports both tables to Parquet, read back with hyparquet. */
async function runAndExport(example: string): Promise<Record<Table, Exported>> {
  const outDir = join(work, example);
  await runStudy({ specPath: join(EXAMPLES, `${example}.yaml`), outDir, env: {} });
  const store = await openStore(outDir);
  const out = {} as Record<Table, Exported>;
  try {
    const run = (await store.getRun())!;
    const facets = conditionColumns(run.spec.conditions);
    for (const table of TABLES) {
      const file = join(work, `${example}-${table}.parquet`);
      await exportParquet(store, { runId: run.id, facets, table }, file);
      const bytes = readFileSync(file);
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      const metadata = parquetMetadata(buffer);
      const columns = metadata.schema.slice(1);
      out[table] = {
        types: new Map(columns.map((c) => [c.name, c.converted_type ? `${c.type}/${c.converted_type}` : c.type!])),
        order: columns.map((c) => c.name),
        rows: await parquetReadObjects({ file: buffer }),
        facets,
        simulated: metadata.key_value_metadata?.find((kv) => kv.key === SIMULATED_KEY)?.value,
      };
    }
  } finally {
    await store.close();
  }
  return out;
}

test("docs/INTEROP.md's column tables are the contract's (npm run docs:columns rewrites them)", () => {
  const text = readFileSync(INTEROP_PATH, "utf8");
  assert.equal(renderInterop(text), text, "docs/INTEROP.md is out of date: run npm run docs:columns");
});

const datasets = join(sharedDir, "datasets");
const QUICKSTARTS: { name: string; skip: string | false }[] = [
  { name: "quickstart", skip: false },
  { name: "grid-quickstart", skip: existsSync(datasets) ? false : `${datasets} not found` },
  { name: "audit-quickstart", skip: false },
  { name: "agents-quickstart", skip: needsBubblewrap() },
];

/** Each quickstart's exported tables, once it has run. */
const exported = new Map<string, Record<Table, Exported>>();

/** Columns whose "none" the contract documents as a null. */
const NULL_WHEN_NONE = ["dropped_params", "agent_flags", "imported_from"];

describe("the quickstarts' Parquet schemas", () => {
  for (const { name, skip } of QUICKSTARTS) {
    test(`${name}: every column of the contract, with the type docs/INTEROP.md documents`, { skip }, async () => {
      const tables = await runAndExport(name);
      exported.set(name, tables);
      for (const table of TABLES) {
        const { types, order, rows, facets, simulated } = tables[table];
        const contract = table === "trials" ? trialsContract(facets) : callsContract();
        assert.deepEqual(order, columnNames(contract), `${name} ${table}: the contract's columns in its order`);
        const documented = documentedTypes(table);
        for (const [column, type] of types) {
          if (facets.includes(column)) assert.equal(type, "BYTE_ARRAY/UTF8", `${name} ${table}: facet ${column}`);
          else assert.equal(type, documented.get(column), `${name} ${table}: ${column}'s type`);
        }
        assert.ok(rows.length > 0, `${name} exported ${table} rows`);
        for (const column of NULL_WHEN_NONE.filter((c) => types.has(c)))
          assert.ok(
            rows.every((r) => r[column] !== ""),
            `${name} ${table}: ${column} is null when none, never an empty string`,
          );
        assert.equal(simulated, "true", `${name} ${table}: a simulated study's file says so in its metadata`);
      }
      if (name !== "agents-quickstart")
        assert.ok(
          tables.trials.rows.every((r) => r.tool_calls === null && r.agent_flags === null),
          `${name}: a study without agents has the agent columns, all null`,
        );
      else
        assert.ok(
          tables.trials.rows.some((r) => typeof r.tool_calls === "number"),
          "the agents quickstart fills its agent columns",
        );
    });
  }

  test("a column two quickstarts share has one type in both", async (t) => {
    if (exported.size < 2) return t.skip(`${exported.size} quickstart(s) exported`);
    for (const table of TABLES) {
      const seen = new Map<string, { type: FileType; study: string }>();
      for (const [study, tables] of exported) {
        for (const [column, type] of tables[table].types) {
          const first = seen.get(column);
          if (first)
            assert.equal(type, first.type, `${table}.${column}: ${first.type} in ${first.study}, ${type} in ${study}`);
          else seen.set(column, { type, study });
        }
      }
    }
  });

  for (const [name, cards] of [
    ["grid-quickstart", ["grid-card.md", "grid-card.json"]],
    ["audit-quickstart", ["audit-gate.md", "audit-gate.json"]],
  ] as const) {
    test(`${name}: analyze writes its kind card with the SIMULATED notice`, async (t) => {
      if (!exported.has(name)) return t.skip(`${name} did not run`);
      const dir = join(work, name);
      const analyzed = runCli(["analyze", dir]);
      assert.ok(analyzed.status === 0 || analyzed.status === 3, analyzed.stderr);
      const [md, json] = cards.map((c) => readFileSync(join(dir, c), "utf8"));
      assert.match(md, /^> \*\*SIMULATED DATA: every response in this study comes from a simulated respondent/);
      const card = JSON.parse(json);
      assert.equal(card.simulated, true, `${cards[1]} says simulated`);
      assert.match(card.notice, /^SIMULATED DATA/);
    });
  }
});
