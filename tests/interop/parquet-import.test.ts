/**
 * Parquet in: a trials table `export --format parquet` wrote comes back as a study with the same
 * contrasts, its provenance, SIMULATED label and study name; a table filtered elsewhere (no
 * Parallax metadata left) still imports with its rows' labels; a Parquet file that is not a
 * trials table is refused naming the missing columns.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parquetReadObjects } from "hyparquet";
import { parquetWriteBuffer } from "hyparquet-writer";
import { importLogs } from "../../src/interop/import.js";
import { parquetColumns } from "../../src/run/export/parquet.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { trialsContract } from "../../src/run/export/table-contract.js";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";

// The declared order puts oe first: it is the reference, and must stay so after the round trip.
const demo = writeDemoSpec({ facets: "    format: [oe, mc]", items: 12 });
after(() => rmSync(demo.dir, { recursive: true, force: true }));
const at = (name: string) => join(demo.dir, name);

// biome-ignore lint/suspicious/noExplicitAny: analysis JSON read back
type Json = any;

function analysed(dir: string): Json {
  const result = runCli(["analyze", dir, "--json"]);
  assert.ok(result.status === 0 || result.status === 1, result.stderr);
  return JSON.parse(result.stdout).analysis;
}

function arrayBufferOf(file: string): ArrayBuffer {
  const bytes = readFileSync(file);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

describe("import parquet", () => {
  before(async () => {
    await runStudy({ specPath: demo.specPath, outDir: demo.outDir, env: {} });
    const exported = runCli(["export", demo.outDir, "--format", "parquet", "--output", at("trials.parquet")]);
    assert.equal(exported.status, 0, exported.stderr);
  });

  it("round trip: same contrasts, the study's name, its provenance and the SIMULATED label", async () => {
    const back = at("back");
    const result = runCli(["import", "parquet", at("trials.parquet"), "--out", back]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /SIMULATED DATA/);
    const original = analysed(demo.outDir);
    const again = analysed(back);
    assert.deepEqual(again.contrasts, original.contrasts);
    assert.deepEqual(again.paired, original.paired);
    const [source, copy] = await Promise.all([demo.outDir, back].map(readRun));
    assert.equal(copy.study, source.study, "the study keeps its name");
    assert.equal(copy.imported?.format, "parquet");
    assert.equal(copy.imported?.origins[0]?.run_id, source.id, "the provenance names the exported run");
    assert.equal(copy.imported?.origins[0]?.simulated, true);
    assert.deepEqual(copy.spec.conditions.facets, { format: ["oe", "mc"] }, "levels in the source's order");
    assert.match(runCli(["status", back]).stdout, /\[SIMULATED responses\]/);
  });

  it("the mapping's study name wins over the source's", async () => {
    const mapping = at("rename.yaml");
    writeFileSync(mapping, "study: renamed-study\n");
    const result = await importLogs({
      format: "parquet",
      paths: [at("trials.parquet")],
      target: at("renamed"),
      mapping,
    });
    assert.equal(result.run.study, "renamed-study");
  });

  it("a table filtered elsewhere (no Parallax metadata) imports its rows, labelled by their simulated column", async () => {
    const rows = (await parquetReadObjects({ file: arrayBufferOf(at("trials.parquet")) })) as Record<string, unknown>[];
    const kept = rows.filter((r) => r.item_id !== "q001");
    assert.ok(kept.length < rows.length && kept.length > 0, "the filter kept some rows, not all");
    // As DuckDB's COPY writes it: the same columns, no key-value metadata.
    const file = at("filtered.parquet");
    writeFileSync(
      file,
      new Uint8Array(parquetWriteBuffer({ columnData: parquetColumns(kept, trialsContract(["format"])) })),
    );
    const result = await importLogs({ format: "parquet", paths: [file], target: at("filtered") });
    assert.equal(result.trials.length, kept.length);
    assert.ok(
      result.completions.every((c) => c.outcome.simulated),
      "every imported outcome keeps the SIMULATED label",
    );
    assert.equal(result.run.study, "import-parquet", "no provenance left: the default name");
  });

  it("refuses a Parquet file that is not a trials table, naming the missing columns, writing nothing", () => {
    const calls = at("calls.parquet");
    const exported = runCli(["export", demo.outDir, "--format", "parquet", "--table", "calls", "--output", calls]);
    assert.equal(exported.status, 0, exported.stderr);
    const out = at("not-trials");
    const result = runCli(["import", "parquet", calls, "--out", out]);
    assert.equal(result.status, 2);
    assert.match(
      result.stderr,
      /calls\.parquet: not a Parallax trials table: missing the columns run_id, model, benchmark, item_id, condition_hash, attempt, status, outcome, parse_status/,
    );
    assert.ok(!existsSync(out), "nothing written for a calls table");
  });
});

async function readRun(dir: string) {
  const store = await openStore(dir);
  try {
    return (await store.getRun())!;
  } finally {
    await store.close();
  }
}
