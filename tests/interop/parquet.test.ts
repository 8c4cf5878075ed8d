import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { importLogs } from "../../src/interop/import.js";
import { exportTable } from "../../src/run/export/export.js";
import { exportParquet, parquetColumns } from "../../src/run/export/parquet.js";
import { openStore } from "../../src/run/store/open.js";
import { interopDir, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-parquet-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("column types come from the contract, not the data; nulls stay null; a value of the wrong type is refused", () => {
  const contract = [
    { name: "attempt", type: "integer", what: "" },
    { name: "cost_usd", type: "number", what: "" },
    { name: "simulated", type: "boolean", what: "" },
    { name: "label", type: "text", what: "" },
    { name: "obj", type: "text", what: "" },
    { name: "empty_share", type: "number", what: "" },
  ] as const;
  const columns = parquetColumns(
    [
      { attempt: 1, cost_usd: 0, simulated: false, label: "a", obj: { x: 1 } },
      { attempt: 2, cost_usd: 0.25, simulated: true, label: null, obj: null },
    ],
    contract,
  );
  assert.deepEqual(
    columns.map((c) => [c.name, c.type]),
    [
      ["attempt", "INT32"],
      ["cost_usd", "DOUBLE"],
      ["simulated", "BOOLEAN"],
      ["label", "STRING"],
      ["obj", "STRING"],
      ["empty_share", "DOUBLE"],
    ],
    "every contract column in its order, typed by the contract (an all-integer cost stays DOUBLE)",
  );
  const byName = Object.fromEntries(columns.map((c) => [c.name, c]));
  assert.deepEqual(byName.obj.data, ['{"x":1}', null]);
  assert.deepEqual(byName.empty_share.data, [null, null], "a column no row has is all null with its type");
  assert.throws(() => parquetColumns([{ attempt: 1.5 }], contract), /column 'attempt': expected an integer, found 1.5/);
  assert.throws(() => parquetColumns([{ simulated: "yes" }], contract), /column 'simulated': expected a boolean/);
  assert.throws(() => parquetColumns([{ extra: 1 }], contract), /column 'extra' is not in the table contract/);
});

for (const table of ["trials", "calls"] as const) {
  test(`the ${table} table round-trips through Parquet with its types (read back with hyparquet)`, {
    skip: interopSkip,
  }, async () => {
    const study = join(work, `study-${table}`);
    await importLogs({ format: "inspect", paths: [join(interopDir, "inspect", "log_streaming.eval")], target: study });
    const store = await openStore(study);
    const file = join(work, `${table}.parquet`);
    const expected: Record<string, unknown>[] = [];
    try {
      const run = (await store.getRun())!;
      const facets = Object.keys(run.spec.conditions.facets);
      await exportTable(store, { runId: run.id, facets, table, format: "jsonl" }, (line) =>
        expected.push(JSON.parse(line)),
      );
      assert.equal(await exportParquet(store, { runId: run.id, facets, table }, file), expected.length);
    } finally {
      await store.close();
    }
    const bytes = readFileSync(file);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const rows = await parquetReadObjects({ file: buffer });
    assert.equal(rows.length, expected.length);
    const schema = new Map(parquetMetadata(buffer).schema.map((s) => [s.name, s]));
    for (const [i, row] of rows.entries()) {
      for (const [column, value] of Object.entries(expected[i])) {
        const got = row[column];
        if (value === null) assert.equal(got, null, `${column} null`);
        else if (typeof value === "object") assert.deepEqual(JSON.parse(got as string), value, column);
        else {
          assert.equal(typeof got, typeof value, `${column}: ${typeof value} kept`);
          assert.equal(got, value, column);
        }
      }
    }
    const types =
      table === "trials"
        ? { attempt: "INT32", outcome: "DOUBLE", simulated: "BOOLEAN", model: "BYTE_ARRAY" }
        : { seq: "INT32", cached: "BOOLEAN", latency_ms: "DOUBLE" };
    for (const [column, type] of Object.entries(types)) assert.equal(schema.get(column)?.type, type, column);
  });
}
