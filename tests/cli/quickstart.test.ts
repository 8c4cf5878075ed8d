/**
 * The quickstart end to end through the real command: its open-ended answers are scored by the
 * simulated judge (not by string match), blinded; `analyze` shows kappa and the blinding index,
 * and the report's trial page shows each judged trial's judge sub-calls. It teaches its planted
 * finding: integrity passes (exit 0), map_reduce's MC loss reads "degrades", and the
 * option-preserving recovery has an interval above zero.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { parse } from "yaml";
import { runCli } from "../helpers/cli.js";
import { STORED_CONDITION } from "../helpers/stored-texts.js";

const QUICKSTART = join(import.meta.dirname, "..", "..", "examples", "quickstart.yaml");

/** The quickstart's size from its spec: trials, open-ended (judged) trials and guessed ones. */
function quickstartSize() {
  const spec = parse(readFileSync(QUICKSTART, "utf8"));
  const items = spec.benchmarks.reduce((n: number, b: { items: unknown[] }) => n + b.items.length, 0);
  const { scaffold, format } = spec.conditions.facets as { scaffold: string[]; format: string[] };
  const trials = items * spec.models.length * scaffold.length * format.length * (spec.attempts ?? 1);
  const judged = trials / format.length;
  return { trials, judged, guessed: judged * spec.scoring.blinding.guess_fraction, arms: scaffold.length };
}

test("the quickstart judges its open-ended answers and reports kappa and the guessing check", {
  timeout: 300_000,
}, () => {
  const out = join(mkdtempSync(join(tmpdir(), "parallax-quickstart-")), "run");
  const size = quickstartSize();
  const run = runCli(["run", QUICKSTART, "--out", out]);
  assert.equal(run.status, 0, run.stderr);

  const db = new Database(join(out, "parallax.db"), { readonly: true });
  try {
    const rows = db.prepare(`select ${STORED_CONDITION}, scorer from trials`).all() as {
      condition: string;
      scorer: string;
    }[];
    assert.equal(rows.length, size.trials);
    for (const row of rows) {
      const format = JSON.parse(row.condition).format;
      assert.match(row.scorer, format === "oe" ? /^judge:judge-a@/ : /^mc_last_answer@/, row.condition);
    }
    const judgeCalls = db.prepare("select count(*) as n from calls where role = 'judge'").get() as { n: number };
    assert.equal(judgeCalls.n, size.judged);
  } finally {
    db.close();
  }
  const blinding = JSON.parse(readFileSync(join(out, "blinding.json"), "utf8"));
  assert.equal(blinding.responses, size.judged);
  assert.equal(blinding.guessing_check.n, size.guessed);
  const agreement = JSON.parse(readFileSync(join(out, "judge-agreement.json"), "utf8"));
  assert.equal(agreement.per_benchmark[0].n, size.guessed);

  const analyze = runCli(["analyze", out]);
  // The planted finding, recovered with integrity passed: map_reduce loses MC accuracy against
  // direct (its MC row reads "degrades") and map_reduce_options recovers part of it, the pooled
  // recovery's interval above zero.
  assert.equal(analyze.status, 0, analyze.stderr);
  assert.match(analyze.stdout, /^measurement integrity: passed/m);
  const mc = analyze.stdout.slice(analyze.stdout.indexOf("pooled at format mc"));
  assert.match(mc, /^map_reduce +[\d.]+% +-[\d.]+ pp \[-[\d.]+ pp, -[\d.]+ pp\] .* degrades$/m);
  const record = JSON.parse(readFileSync(join(out, "analysis.json"), "utf8")).analysis;
  const pooled = record.optionPreserving.rows.find((r: { model: string }) => r.model === "all");
  assert.ok(pooled.loss.ci95[0] > 0, `pooled loss ${JSON.stringify(pooled.loss)}`);
  assert.ok(pooled.recovery.ci95?.[0] > 0, `pooled recovery ${JSON.stringify(pooled.recovery)}`);
  // The overview says what was found under the contrasts: the pooled recovery and its interval, one line.
  const recovery =
    /^option-preserving recovery \(map_reduce_options vs map_reduce, mc, all models\): (\d+)% \[(\d+)%, \d+%\] of the loss$/m.exec(
      mc,
    );
  assert.ok(recovery, `the overview's recovery line:\n${mc}`);
  assert.equal(Number(recovery[1]), Math.round(100 * pooled.recovery.estimate), "the line shows the recorded estimate");
  assert.ok(
    analyze.stdout.split("\n").every((line) => line.length <= 120),
    "the overview fits 120 columns",
  );
  const full = runCli(["analyze", out, "--full"]);
  const recoveryTable = full.stdout.slice(full.stdout.indexOf("option-preserving recovery:"));
  const tableLines = recoveryTable.slice(0, recoveryTable.indexOf("\n\n")).split("\n");
  assert.ok(
    tableLines.every((line) => line.length <= 120),
    `the --full recovery table fits 120 columns:\n${tableLines.join("\n")}`,
  );
  assert.match(full.stdout, /^all +[\d.]+% .* \+[\d.]+ pp +\d+% \[\d+%, \d+%\]/m);
  assert.match(analyze.stdout, /judge agreement: cross-validated on every judged benchmark \(smallest kappa 0\.\d+\)/);
  assert.match(analyze.stdout, /blinding: blinding (held|not confirmed): Blinding Index -?0\.\d+ overall/);
  const chance = (1 / size.arms).toFixed(3);
  const guessing = new RegExp(
    `guessing check: \\d+/${size.guessed} correct vs chance ${chance}, .*\\((at chance by this test|above chance: blinding failed)\\)`,
  ).exec(analyze.stdout);
  assert.ok(guessing, analyze.stdout);
  if (guessing[1].endsWith("failed"))
    assert.match(
      analyze.stdout,
      /blinding sensitivity: judged rate \(share scored 1\) on all guessed cases vs the incorrectly-guessed cases only/,
    );
  // The blinding stays within the integrity gate's bound: the demo's verdicts stand.
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
