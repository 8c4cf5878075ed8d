/**
 * examples/audit-quickstart.yaml recovers what the simulated panel plants (docs/SIMULATION.md):
 * attribute sensitivity on `facts` (selective), none on `groups` (non-selective), and the
 * question-only edits that never reach the pair scorer of the log-prob path on `pairs` (the F1
 * audit flags them: ineligible, F1). One model of the panel, to keep the test short.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { parse, stringify } from "yaml";
import type { AuditResult } from "../../src/analysis/all-analyses.js";
import { analyzeDirectory } from "../../src/analysis/directory.js";
import { runStudy } from "../../src/run/run-study.js";
import { openStore } from "../../src/run/store/open.js";

const EXAMPLE = join(import.meta.dirname, "../../examples/audit-quickstart.yaml");

describe("the audit quickstart recovers the planted selectivity", () => {
  let audit: AuditResult;
  before(async () => {
    const spec = parse(readFileSync(EXAMPLE, "utf8"));
    spec.models = spec.models.slice(0, 1);
    const dir = mkdtempSync(join(tmpdir(), "parallax-audit-qs-"));
    const specPath = join(dir, "audit.yaml");
    writeFileSync(specPath, stringify(spec));
    const outDir = join(dir, "out");
    await runStudy({ specPath, outDir, env: {} });
    const store = await openStore(outDir);
    try {
      const { analysis } = await analyzeDirectory(outDir, store, (await store.getRun())!);
      assert.ok(!("skipped" in analysis.audit), 'expected !("skipped" in analysis.audit)');
      audit = analysis.audit;
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
});
