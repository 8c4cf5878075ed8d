/**
 * `parallax analyze` stores one analysis record; `parallax report` renders it without
 * recomputing: without a prior analyze it says what to run (exit 2), a number tampered in the
 * stored record shows up in the report, and a stale or foreign record is refused.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

const FAST_PLAN = "analysis:\n  bootstrap: { resamples: 200 }\n  specification_curve: false\n";

function analysedStudy(): string {
  const { specPath, outDir } = writeDemoSpec();
  writeFileSync(specPath, demoSpecYaml({ items: 8, facets: "    scaffold: [direct, cot]" }) + FAST_PLAN);
  const run = runCli(["run", specPath, "--out", outDir]);
  assert.equal(run.status, 0, run.stderr);
  return outDir;
}

test("report without a prior analyze exits 2 and names the command to run", () => {
  const dir = analysedStudy();
  const report = runCli(["report", dir]);
  assert.equal(report.status, 2, report.stderr);
  assert.ok(report.stderr.includes(`run 'parallax analyze ${dir}' first`), report.stderr);
});

test("report renders the stored analysis: a number tampered in analysis.json appears in the report", () => {
  const dir = analysedStudy();
  const analyze = runCli(["analyze", dir]);
  assert.equal(analyze.status, 0, analyze.stderr);
  const path = join(dir, "analysis.json");
  const record = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(record.format, "parallax-analysis");
  assert.equal(record.schemaVersion, 1);
  assert.match(record.inputs.rows, /^[0-9a-f]{64}$/);
  assert.deepEqual(
    JSON.parse(readFileSync(join(dir, "scorecard.json"), "utf8")),
    record.scorecard,
    "scorecard.json is the record's scorecard",
  );
  // Recomputing would give the true case count (8); the stored record says otherwise.
  assert.equal(record.analysis.counts.clusters, 8);
  record.analysis.counts.clusters = 987654;
  record.scorecard.nnh.rows[0].verdict = "TAMPERED-VERDICT";
  writeFileSync(path, JSON.stringify(record));
  const report = runCli(["report", dir]);
  assert.equal(report.status, 0, report.stderr);
  const html = readFileSync(join(dir, "report.html"), "utf8");
  assert.match(html, /987654 cases/);
  assert.match(html, /TAMPERED-VERDICT/);
});

test("report refuses --plan/--scorer, a corrupt record and a record of other trials, saying what to run", () => {
  const dir = analysedStudy();
  assert.equal(runCli(["analyze", dir]).status, 0);
  const withPlan = runCli(["report", dir, "--plan", "p.yaml"]);
  assert.equal(withPlan.status, 2);
  assert.match(withPlan.stderr, /run 'parallax analyze .* --plan p\.yaml', then 'parallax report/);

  const path = join(dir, "analysis.json");
  const good = readFileSync(path, "utf8");
  const stale = JSON.parse(good);
  stale.inputs.rows = "0".repeat(64);
  writeFileSync(path, JSON.stringify(stale));
  const outdated = runCli(["report", dir]);
  assert.equal(outdated.status, 2);
  assert.match(outdated.stderr, /out of date: trials or their scores changed/);

  writeFileSync(path, good.slice(0, 200));
  const corrupt = runCli(["report", dir]);
  assert.equal(corrupt.status, 2);
  assert.match(corrupt.stderr, /is not valid JSON .*run 'parallax analyze .*' again/);
});
