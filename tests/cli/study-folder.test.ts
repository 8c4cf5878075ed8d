/**
 * A study folder is self-contained: `parallax run` stores the items it ran (metadata, options,
 * gold) in the store, and `analyze` and `score` read them from there, never from the benchmark
 * sources. The study's spec names its BBQ source by a relative path; the folder analyses to the
 * same analysis.json wherever it is copied (its own path and the clock aside), and after the
 * sources are deleted, with the BBQ bias table, H3-bias and the gold-position check. A folder
 * whose store holds no items (a study recorded before studies kept them) is refused with one line
 * naming what it lacks and the command that stores it; that command stores them and runs nothing.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { runCli } from "../helpers/cli.js";
import { after, before, describeNeeding, it, needsSharedData, SHARED_DIR } from "../helpers/prerequisites.js";

const BBQ = join(SHARED_DIR, "datasets", "bbq", "data");

const SPEC = `study: self-contained
seed: 3
models:
  - { id: sim-a, provider: sim, model: a, options: { ability: 1.0 }, params: { temperature: 0 } }
  - { id: sim-b, provider: sim, model: b, options: { ability: 0.5 }, params: { temperature: 0 } }
benchmarks:
  - id: bbq
    loader: bbq
    source: ../data/bbq   # relative to this file's folder
    sample: { n: 24, seed: 42, stratify_by: stratum, allocation: equal }
conditions:
  facets:
    scaffold: [direct, { name: invocation_chain, intensity: aggressive, property: bias }]
    format: [mc]
analysis:
  bootstrap: { resamples: 200 }
  specification_curve: false
`;

/** analysis.json with the study folder's path and the analysis times replaced (they differ by design). */
function analysisOf(dir: string): string {
  return readFileSync(join(dir, "analysis.json"), "utf8")
    .replaceAll(dir, "<DIR>")
    .replace(/"(writtenAt|analyzedAt)": "[^"]*"/g, '"$1": "<TIME>"');
}

function analyze(dir: string): string {
  const result = runCli(["analyze", dir]);
  assert.equal(result.status, 0, result.stderr);
  return analysisOf(dir);
}

interface Record {
  analysis: {
    bbqBias?: { skipped?: string; rows?: unknown[] };
    subhypotheses: { results: { name: string; verdict: string; test: unknown }[] };
    integrity: { checks: { check: string; status: string; detail: string }[] };
  };
}

describeNeeding(needsSharedData(), "a study folder analyses the same wherever it is", () => {
  let work: string;
  let specPath: string;
  let dataDir: string;
  let first: string;
  let reference: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "parallax-folder-"));
    // Two of BBQ's category files, copied so the test can delete them.
    dataDir = join(work, "data", "bbq");
    mkdirSync(dataDir, { recursive: true });
    for (const file of ["Religion.jsonl", "Sexual_orientation.jsonl"]) cpSync(join(BBQ, file), join(dataDir, file));
    mkdirSync(join(work, "spec"));
    specPath = join(work, "spec", "study.yaml");
    writeFileSync(specPath, SPEC);
    first = join(work, "study");
    const run = runCli(["run", specPath, "--out", first]);
    assert.equal(run.status, 0, run.stderr);
    reference = analyze(first);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("the analysis reads the items: bias table, H3-bias and the gold-position check", () => {
    const record = JSON.parse(reference) as Record;
    assert.equal(record.analysis.bbqBias?.skipped, undefined);
    assert.ok((record.analysis.bbqBias?.rows?.length ?? 0) > 0, "the BBQ bias table has rows");
    const h3 = record.analysis.subhypotheses.results.find((r) => r.name === "H3-bias");
    assert.notEqual(h3?.verdict, "not tested", JSON.stringify(h3));
    assert.ok(h3?.test, "H3-bias is tested");
    const gold = record.analysis.integrity.checks.find((c) => c.check === "gold_position");
    assert.notEqual(gold?.status, "not available", gold?.detail);
    assert.match(gold?.detail ?? "", /of 24 items/);
  });

  it("a copy one level deeper and a copy three levels deeper give the same analysis.json", () => {
    for (const depth of [["a"], ["a", "b", "c"]]) {
      const copy = join(work, "copies", ...depth, "study");
      cpSync(first, copy, { recursive: true });
      rmSync(join(copy, "analysis.json"));
      assert.equal(analyze(copy), reference, `copied to ${copy}`);
    }
  });

  it("a folder without stored items is refused with the command that stores them; resuming stores them", () => {
    const legacy = join(work, "legacy", "study");
    cpSync(first, legacy, { recursive: true });
    // As a study recorded before a study kept its items: the store holds the run and trials only.
    const db = new Database(join(legacy, "parallax.db"));
    db.exec("delete from run_item_batches; delete from run_plugins");
    db.close();
    for (const command of ["analyze", "score"]) {
      const refused = runCli([command, legacy]);
      assert.equal(refused.status, 2, `${command}: ${refused.stderr}`);
      const lines = refused.stderr.trim().split("\n");
      assert.equal(lines.length, 1, refused.stderr);
      assert.match(lines[0], /was recorded before a study kept its items \(their metadata, options and gold answers\)/);
      assert.ok(lines[0].includes(`parallax run SPEC --out ${legacy}`), lines[0]);
    }
    const resumed = runCli(["run", specPath, "--out", legacy]);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stdout + resumed.stderr, /96 finished, 0 errored, 0 pending/);
    assert.equal(analyze(legacy), reference.replaceAll(first, legacy));
  });

  it("with the benchmark sources deleted, the analysis and score still read the stored items", () => {
    const copy = join(work, "copies", "a", "b", "c", "study");
    rmSync(join(work, "data"), { recursive: true });
    assert.equal(analyze(copy), reference);
    const score = runCli(["score", copy]);
    assert.equal(score.status, 0, score.stderr);
    assert.match(score.stdout, /scored 96 trial\(s\)/);
  });
});
