/**
 * examples/audit-quickstart.yaml recovers what the simulated panel plants (docs/SIMULATION.md):
 * attribute sensitivity on `facts` (selective), none on `groups` (non-selective), and the
 * question-only edits that never reach the pair scorer of the log-prob path on `pairs` (the F1
 * audit flags them: ineligible, F1; the integrity gate's silent_no_op fails there, as the spec
 * declares). Its items put their gold at every position, so the gold-position check passes. The
 * summary and every card `analyze` writes read without "undefined" or "NaN". One model of the panel, to
 * keep the test short: sim-b, the one whose scores clear G2 on the benchmarks with a gold answer
 * (sim-a's groups score does not, as the spec's header says).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { parse, stringify } from "yaml";
import type { AuditResult } from "../../src/analysis/all-analyses.js";
import { analyzeDirectory } from "../../src/analysis/core/directory.js";
import { failedCheckLabel, INTEGRITY_FAILED_LINE } from "../../src/analysis/all-analyses.js";
import { analysisRecord, writeAnalysisRecord } from "../../src/analysis/core/record.js";
import type { StudyAnalysis } from "../../src/analysis/core/registry.js";
import { formatSummary } from "../../src/analysis/core/summary.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";

const EXAMPLE = join(import.meta.dirname, "../../examples/audit-quickstart.yaml");

describe("the audit quickstart recovers the planted selectivity", () => {
  let analysis: StudyAnalysis;
  let audit: AuditResult;
  /** The terminal summary and every file `analyze` writes, by name. */
  const rendered = new Map<string, string>();
  before(async () => {
    const spec = parse(readFileSync(EXAMPLE, "utf8"));
    spec.models = spec.models.filter((m: { id: string }) => m.id === "sim-b");
    assert.equal(spec.models.length, 1, "the spec's panel has sim-b");
    const dir = mkdtempSync(join(tmpdir(), "parallax-audit-qs-"));
    const specPath = join(dir, "audit.yaml");
    writeFileSync(specPath, stringify(spec));
    const outDir = join(dir, "out");
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const outcome = await analyzeDirectory(outDir, store, (await store.getRun())!);
      analysis = outcome.analysis;
      assert.ok(!("skipped" in analysis.audit), "the audit analysis ran");
      audit = analysis.audit;
      rendered.set("summary", formatSummary(outcome.analysis, outcome.methodology));
      for (const path of writeAnalysisRecord(outDir, analysisRecord(outcome)))
        rendered.set(path.slice(outDir.length + 1), readFileSync(path, "utf8"));
    } finally {
      await store.close();
    }
  });

  const cell = (benchmark: string, path: string) =>
    audit.cells.find((c) => c.benchmark === benchmark && c.path === path)!;

  test("facts (planted construct flip): CSR's CI wholly above 1, raw verdict selective", () => {
    const c = cell("facts", "free_form");
    assert.ok(c.ci[0]! > 1, `CI ${c.ci}`);
    assert.equal(c.status.raw, "selective");
    assert.equal(c.status.bucket, "exploratory", "G6 is proposed: the verdict is held as exploratory");
  });

  test("groups (no planted attribute effect): CSR's CI wholly below 1, raw verdict non_selective", () => {
    const c = cell("groups", "free_form");
    assert.ok(c.ci[1]! < 1, `CI ${c.ci}`);
    assert.equal(c.status.raw, "non_selective");
  });

  test("pairs: the question-only edits are no-ops on the log-prob path only, and F1 makes the cell ineligible", () => {
    const lp = cell("pairs", "logprob");
    assert.equal(lp.noOp.families.semantic.rate, 1);
    assert.ok(lp.noOp.families.format.rate! >= 0.2, JSON.stringify(lp.noOp));
    assert.equal(lp.status.raw, "not_applicable");
    const ff = cell("pairs", "free_form");
    for (const family of ["format", "semantic", "placebo"]) assert.equal(ff.noOp.families[family].rate, 0);
  });

  test("the integrity gate fails only where the spec plants it, and says so in one line", () => {
    const failed = analysis.integrity.checks.filter((c) => c.status === "fail");
    assert.deepEqual(
      failed.map((c) => failedCheckLabel(analysis.integrity.planted ?? [], c)),
      ["silent_no_op (planted)"],
    );
    assert.deepEqual(new Set(failed[0].cells.map((c) => c.benchmark)), new Set(["pairs"]));
    const gold = analysis.integrity.checks.find((c) => c.check === "gold_position")!;
    assert.equal(gold.status, "pass", gold.detail);
    const summary = rendered.get("summary")!.split("\n");
    const at = summary.indexOf(INTEGRITY_FAILED_LINE);
    assert.ok(at >= 0, "the summary states that the gate failed");
    assert.match(summary[at + 1], /^Planted on purpose: silent_no_op on pairs: the log-prob pair scorer reads only/);
  });

  test("no card or summary prints 'undefined' or 'NaN'", () => {
    // An audit study writes its own card, not a comparison's scorecard.
    assert.ok(rendered.has("audit-gate.md") && !rendered.has("scorecard.md"), [...rendered.keys()].join(", "));
    for (const [name, text] of rendered) {
      if (name.endsWith(".json")) continue; // JSON holds null, never NaN; its prose is not a card

      const bad = text.split("\n").filter((line) => /\bundefined\b|\bNaN\b/.test(line));
      assert.deepEqual(bad, [], `${name} prints undefined or NaN`);
    }
  });
});
