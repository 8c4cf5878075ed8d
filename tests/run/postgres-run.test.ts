/**
 * A study run into a PostgreSQL store (`parallax run --store postgres://...`): trials land in
 * PostgreSQL, the spec and manifest copies in the study directory, and status, export and
 * analyze read the store through its URL. Skipped without PARALLAX_TEST_PG_URL (npm test sets
 * it when PostgreSQL is installed).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { runStudy } from "../../src/run/execute/run-study.js";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";
import { dropTestSchemas, PG_URL, queryStore, skipWithoutPostgres, testStoreUrl } from "../helpers/postgres-run.js";

const skip = skipWithoutPostgres;
// One schema for the whole file (dropped after it).
const url = PG_URL ? testStoreUrl("parallax_run") : "";
const storeUrl = () => url;

after(() => dropTestSchemas());

test("run into PostgreSQL, then status, export and analyze through the URL", { skip }, async () => {
  const { specPath, outDir } = writeDemoSpec({ items: 8, facets: "    scaffold: [direct, cot]" });
  const result = await runStudy({ specPath, outDir, store: storeUrl(), env: {} });
  assert.deepEqual(result.counts, { pending: 0, finished: 16, errored: 0 });
  assert.equal(existsSync(join(outDir, "parallax.db")), false, "no SQLite file when the store is PostgreSQL");
  assert.equal(existsSync(join(outDir, "manifest.json")), true);

  const again = await runStudy({ specPath, outDir, store: storeUrl(), env: {} });
  assert.equal(again.summary.attempted, 0, "a second run resumes from PostgreSQL");

  const status = runCli(["status", storeUrl()]);
  assert.equal(status.status, 0, status.stderr);
  assert.match(status.stdout, /finished 16 \| errored 0 \| pending 0/);
  const exported = runCli(["export", storeUrl(), "--format", "jsonl"]);
  assert.equal(exported.status, 0, exported.stderr);
  assert.equal(exported.stdout.trim().split("\n").length, 16);
  const analyzed = runCli(["analyze", storeUrl(), "--json"]);
  assert.equal(analyzed.status, 0, analyzed.stderr);
  assert.equal(JSON.parse(analyzed.stdout).analysis.counts.analysed, 16);
});

test("analyze URL stores the analysis in the store, and report URL renders it with nothing placed by hand", {
  skip,
}, async () => {
  const reportUrl = testStoreUrl("parallax_report");
  const { specPath, outDir, dir } = writeDemoSpec({ items: 4 });
  await runStudy({ specPath, outDir, store: reportUrl, env: {} });
  const reportPath = join(dir, "elsewhere", "report.html");
  mkdirSync(dirname(reportPath));
  const before = runCli(["report", reportUrl, "--out", reportPath]);
  assert.equal(before.status, 2, "no analysis yet: refused");
  const analyzed = runCli(["analyze", reportUrl]);
  assert.ok(analyzed.status === 0 || analyzed.status === 3, analyzed.stderr);
  assert.match(analyzed.stdout, /wrote the analysis of run \S+ in /);
  const [stored] = await queryStore<{ n: string }>(reportUrl, "select count(*) as n from analyses");
  assert.equal(Number(stored.n), 1, "the analysis is in the store");
  const report = runCli(["report", reportUrl, "--out", reportPath]);
  assert.equal(report.status, 0, report.stderr);
  assert.match(readFileSync(reportPath, "utf8"), /<html/i);
});
