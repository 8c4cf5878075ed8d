/**
 * analysis.json: written by the analysis layer as one versioned record (schema version, Parallax
 * version, input hashes) and read back through one checked reader with a clear error for a
 * missing, corrupt, newer or incomplete file.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  ANALYSIS_FILE,
  analysisRecord,
  analyzeTableFile,
  normalizePlan,
  readAnalysisRecord,
  writeAnalysisRecord,
} from "../../src/analysis/index.js";
import { InputError } from "../../src/core/errors.js";
import { PARALLAX_VERSION } from "../../src/core/version.js";
import { sha256 } from "../../src/core/hash.js";

async function storedRecord() {
  const dir = mkdtempSync(join(tmpdir(), "parallax-record-"));
  const lines = ["model,scaffold,benchmark,item_id,outcome"];
  for (let i = 1; i <= 20; i++) lines.push(`m,direct,b,${i},${i % 3 === 0 ? 0 : 1}`, `m,cot,b,${i},${i % 2}`);
  const csv = join(dir, "table.csv");
  writeFileSync(csv, `${lines.join("\n")}\n`);
  const plan = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false });
  const record = analysisRecord(await analyzeTableFile(csv, { plan }));
  const written = writeAnalysisRecord(dir, record);
  return { dir, csv, record, written, path: join(dir, ANALYSIS_FILE) };
}

function rejects(fn: () => unknown, pattern: RegExp) {
  assert.throws(fn, (error: Error) => {
    assert.ok(error instanceof InputError, `${error}`);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("the analysis record", () => {
  it("carries the schema version, the Parallax version and the inputs' hashes, and reads back as written", async () => {
    const { record, written, path, csv } = await storedRecord();
    assert.equal(record.schemaVersion, 1);
    assert.equal(record.parallaxVersion, PARALLAX_VERSION);
    assert.equal(record.inputs.kind, "table");
    assert.equal(record.inputs.fileHash, sha256(readFileSync(csv, "utf8")));
    assert.match(record.inputs.rows, /^[0-9a-f]{64}$/);
    assert.deepEqual(
      written.map((w) => w.split("/").pop()),
      ["analysis.json", "scorecard.json", "scorecard.md"],
    );
    assert.deepEqual(readAnalysisRecord(path, "DIR"), JSON.parse(readFileSync(path, "utf8")));
    assert.equal(readAnalysisRecord(path, "DIR").analysis.counts.analysed, 40);
  });

  it("names what to run for a missing, corrupt, newer or incomplete record", async () => {
    const { dir, path, record } = await storedRecord();
    rejects(
      () => readAnalysisRecord(join(dir, "nothing.json"), "STUDY"),
      /STUDY has no stored analysis .*run 'parallax analyze STUDY' first/,
    );
    writeFileSync(path, "{ not json");
    rejects(() => readAnalysisRecord(path, "STUDY"), /is not valid JSON .*run 'parallax analyze STUDY' again/);
    writeFileSync(path, JSON.stringify({ ...record, schemaVersion: 99, parallaxVersion: "9.0.0" }));
    rejects(
      () => readAnalysisRecord(path, "STUDY"),
      /schema version 99 \(written by Parallax 9\.0\.0\).*reads up to version 1/,
    );
    writeFileSync(path, JSON.stringify({ ...record, inputs: { ...record.inputs, rows: "abc" } }));
    rejects(() => readAnalysisRecord(path, "STUDY"), /not a Parallax analysis record \(inputs\.rows: /);
    const { paired: _dropped, ...analysis } = record.analysis;
    writeFileSync(path, JSON.stringify({ ...record, analysis }));
    rejects(() => readAnalysisRecord(path, "STUDY"), /lacks analysis\.paired; run 'parallax analyze STUDY' again/);
  });
});
