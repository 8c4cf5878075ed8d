/**
 * The quickstart end to end through the real command: its open-ended answers are scored by the
 * simulated judge (not by string match), blinded; `analyze` shows kappa and the blinding index,
 * and the report's trial page shows each judged trial's judge sub-calls.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { runCli } from "../helpers/cli.js";

const QUICKSTART = join(import.meta.dirname, "..", "..", "examples", "quickstart.yaml");

test("the quickstart judges its open-ended answers and reports kappa and the guessing check", {
  timeout: 300_000,
}, () => {
  const out = join(mkdtempSync(join(tmpdir(), "parallax-quickstart-")), "run");
  const run = runCli(["run", QUICKSTART, "--out", out]);
  assert.equal(run.status, 0, run.stderr);

  const db = new Database(join(out, "parallax.db"), { readonly: true });
  try {
    const rows = db.prepare("select condition, scorer from trials").all() as { condition: string; scorer: string }[];
    assert.equal(rows.length, 288);
    for (const row of rows) {
      const format = JSON.parse(row.condition).format;
      assert.match(row.scorer, format === "oe" ? /^judge:judge-a@/ : /^mc_last_answer@/, row.condition);
    }
    const judgeCalls = db.prepare("select count(*) as n from calls where role = 'judge'").get() as { n: number };
    assert.equal(judgeCalls.n, 144);
  } finally {
    db.close();
  }
  const blinding = JSON.parse(readFileSync(join(out, "blinding.json"), "utf8"));
  assert.equal(blinding.responses, 144);
  assert.equal(blinding.guessing_check.n, 72);
  const agreement = JSON.parse(readFileSync(join(out, "judge-agreement.json"), "utf8"));
  assert.equal(agreement.per_benchmark[0].n, 72);

  const analyze = runCli(["analyze", out]);
  // Declared in the spec: 12 clusters cannot carry the 13 coefficients of the scaffold x model
  // interaction test, so few_clusters fails that test (exit 3); every contrast against direct stands.
  assert.equal(analyze.status, 3, analyze.stderr);
  assert.match(analyze.stderr, /Failed: few_clusters \(planted\)\./);
  const record = JSON.parse(readFileSync(join(out, "analysis.json"), "utf8")).analysis;
  const interaction = record.hypotheses.interactions.find((i: { with: string }) => i.with === "model");
  assert.equal(interaction.notInterpretable, "12 clusters for 13 coefficients");
  for (const group of record.contrasts.itt.byFormat)
    for (const c of group.pooled.contrasts)
      assert.ok(!c.notInterpretable, `${group.format} ${c.condition}: ${c.verdict}`);
  assert.match(analyze.stdout, /judge agreement: cross-validated, kappa 0\.\d+/);
  assert.match(analyze.stdout, /blinding: blinding (held|not confirmed): Blinding Index -?0\.\d+ overall/);
  // judge-a sees through the cot arm's reasoning preface 40% of the time: the guessing check
  // reads it; when it fails, the sensitivity analysis on the incorrectly-guessed cases follows.
  const guessing =
    /guessing check: \d+\/72 correct vs chance 0\.250, .*\((at chance by this test|above chance: blinding failed)\)/.exec(
      analyze.stdout,
    );
  assert.ok(guessing, analyze.stdout);
  if (guessing[1].endsWith("failed"))
    assert.match(
      analyze.stdout,
      /blinding sensitivity: judged rate \(share scored 1\) on all guessed cases vs the incorrectly-guessed cases only/,
    );
  // The planted giveaway stays within the integrity gate's blinding bound: the demo's verdicts stand.
  assert.doesNotMatch(analyze.stdout, /^ +(fail|warn): Judge agreement and blinding/m);
  const checks = JSON.parse(readFileSync(join(out, "analysis.json"), "utf8")).analysis.integrity.checks;
  assert.equal(checks.find((c: { check: string }) => c.check === "judge_quality")?.status, "pass");

  const report = runCli(["report", out]);
  assert.equal(report.status, 0, report.stderr);
  const pages = readdirSync(out).filter((f) => f.endsWith(".html"));
  assert.ok(
    pages.some((f) => readFileSync(join(out, f), "utf8").includes("judge_validation")),
    `a report page shows the judge sub-calls (${pages.join(", ")})`,
  );
  // The trials are split into pages of 500: what follows may sit on any of them.
  const trialsPage = pages
    .filter((f) => /trials-\d{4}\.html$/.test(f))
    .map((f) => readFileSync(join(out, f), "utf8"))
    .join("\n");
  assert.match(trialsPage, /scored by judge:judge-a@1\.0\.0/);
  assert.match(trialsPage, /scored by mc_last_answer@/);
  assert.match(
    trialsPage,
    /verdict of judge judge-a \(primary, rubric factual_oe\): (correct|incorrect), confidence \d/,
  );
  assert.match(trialsPage, /blinding check: judge judge-a guessed /);
  assert.ok(existsSync(join(out, "report.html")), 'expected existsSync(join(out, "report.html"))');
});
