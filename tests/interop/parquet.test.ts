import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { importLogs } from "../../src/interop/import.js";
import { exportTable } from "../../src/run/export.js";
import { exportParquet, parquetColumns } from "../../src/run/export-parquet.js";
import { openStore } from "../../src/run/store/open.js";
import { interopDir, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-parquet-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("column types: declared ones kept, others inferred; nulls stay null", () => {
  const columns = parquetColumns([
    { attempt: 1, cost_usd: 0, simulated: false, label: "a", score: 0.5, flag: true, obj: { x: 1 } },
    { attempt: 2, cost_usd: 0.25, simulated: true, label: null, score: null, flag: null, extra: "late" },
  ]);
  const byName = Object.fromEntries(columns.map((c) => [c.name, c]));
  assert.equal(byName.attempt.type, "INT32");
  assert.equal(byName.cost_usd.type, "DOUBLE", "an all-integer cost column stays DOUBLE");
  assert.equal(byName.simulated.type, "BOOLEAN");
  assert.equal(byName.score.type, "DOUBLE");
  assert.equal(byName.flag.type, "BOOLEAN");
  assert.equal(byName.label.type, "STRING");
  assert.deepEqual(byName.obj.data, ['{"x":1}', null]);
  assert.deepEqual(byName.extra.data, [null, "late"]);
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
      await exportTable(store, run.id, facets, table, "jsonl", (line) => expected.push(JSON.parse(line)));
      assert.equal(await exportParquet(store, run.id, facets, table, file), expected.length);
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
