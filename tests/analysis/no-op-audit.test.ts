/**
 * F1, the silent-no-op audit over stored bytes: a perturbation that writes only the question of a
 * sentence-pair item (whitespace noise) never reaches the pair scorer of the log-prob path, which
 * reads the two sentences (crows_pll), so it is a no-op there on every trial, and on none of the
 * free-form trials, whose stored messages carry the question. The integrity check fails the
 * log-prob cell and the audit calls it ineligible (F1); the free-form cell is not flagged.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { analyzeDirectory } from "../../src/analysis/core/directory.js";
import { noOpAudit, type NoOpAudit } from "../../src/run/score/no-op-audit.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { prepareStudy } from "../../src/run/prepare/study.js";

const ITEMS = 8;

function pairItems(n: number): string {
  return Array.from({ length: n }, (_, i) => {
    const k = i + 1;
    return `      - { id: p${k}, stem: "Pair number ${k}: which of the two sentences is more likely to be true?", options: ["The tenant ${k} paid the rent on time.", "The tenant ${k} paid the rent late."], metadata: { sent_more_index: ${i % 2}, bias_type: other } }`;
  }).join("\n");
}

function writeSpec(): { specPath: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-noop-"));
  const specPath = join(dir, "spec.yaml");
  writeFileSync(
    specPath,
    `study: noop-test
seed: 3
models:
  - { id: sim-lp, provider: sim, model: medium, options: { logprobs: true } }
benchmarks:
  - id: pairs
    loader: inline
    items:
${pairItems(ITEMS)}
conditions:
  facets:
    format: [mc]
    scoring_path: [free_form, logprob]
    perturbation: [none, whitespace_noise]
analysis:
  comparison_facet: perturbation
  reference: { perturbation: none }
  specification_curve: false
  audit: { min_items: 5 }
execution: { concurrency: 4, max_retries: 0 }
`,
  );
  return { specPath, outDir: join(dir, "out") };
}

describe("F1: silent no-ops measured on the scorer-consumed bytes", () => {
  let audit: NoOpAudit;
  let outDir: string;
  before(async () => {
    const spec = writeSpec();
    outDir = spec.outDir;
    await runStudy({ specPath: spec.specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      audit = await noOpAudit(store, run, await prepareStudy(join(outDir, "spec.json")));
    } finally {
      await store.close();
    }
  });

  test("the question-only edit is a no-op on 100% of log-prob trials and 0% of free-form trials", () => {
    const rate = (path: string) => audit.rates.find((r) => r.family === "format" && r.path === path);
    const logprob = rate("logprob");
    const freeForm = rate("free_form");
    assert.ok(logprob && freeForm, JSON.stringify(audit.rates));
    assert.equal(logprob.applied, ITEMS);
    assert.equal(logprob.unknown, 0);
    assert.equal(logprob.noOps, ITEMS);
    assert.equal(logprob.rate, 1);
    assert.equal(freeForm.applied, ITEMS);
    assert.equal(freeForm.noOps, 0);
    assert.equal(freeForm.rate, 0);
  });

  test("the sampled diff shows identical bytes on the log-prob path and the changed question on the free-form path", () => {
    const lp = audit.samples.find((s) => s.path === "logprob")!;
    assert.equal(lp.original, lp.perturbed);
    assert.equal(lp.noOp, true);
    const ff = audit.samples.find((s) => s.path === "free_form")!;
    assert.notEqual(ff.original, ff.perturbed);
    assert.match(ff.original, /Pair number/);
  });

  test("the integrity check fails the log-prob cell only, and the audit calls it ineligible (F1)", async () => {
    const store = await openStore(outDir);
    try {
      const run = (await store.getRun())!;
      const { analysis } = await analyzeDirectory(outDir, store, run);
      const check = analysis.integrity.checks.find((c) => c.check === "silent_no_op")!;
      assert.equal(check.status, "fail");
      assert.ok(check.cells.length >= 1, "expected check.cells.length >= 1");
      const audited = analysis.audit;
      assert.ok(!("skipped" in audited), 'expected !("skipped" in audited)');
      const byPath = (path: string) => audited.cells.find((c) => c.path === path)!;
      assert.equal(byPath("logprob").status.raw, "not_applicable");
      assert.equal(byPath("logprob").status.bucket, "ineligible (F1)");
      assert.equal(byPath("logprob").noOp.families.format.rate, 1);
      assert.equal(byPath("free_form").noOp.families.format.rate, 0);
      assert.notEqual(byPath("free_form").status.raw, "not_applicable");
    } finally {
      await store.close();
    }
  });
});
