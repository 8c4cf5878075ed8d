/**
 * The audit analysis on constructed rows, against values computed by hand from the construction:
 * family deltas, CSR, the symmetric drop of a parse failure's pairs, the status of a selective, a
 * non-selective and an F1 (no-op) cell, G6's effect on the bucket, and the plan that cannot ask
 * for an unpaired bootstrap.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type AuditResult, perturbationAudit } from "../../src/analysis/audit/audit-analysis.js";
import { auditMarkdown, auditSummaryLines } from "../../src/analysis/audit/gate-report.js";
import { normalizePlan, parsePlan } from "../../src/analysis/core/plan.js";
import type { AnalysisContext } from "../../src/analysis/core/registry.js";
import { build, ITEMS } from "../helpers/audit-rows.js";

function runAudit(
  plan = normalizePlan({ audit: { resamples: 400 } }),
  edit: (rows: ReturnType<typeof build>["rows"]) => void = () => {},
): AuditResult {
  const { rows, facts } = build();
  edit(rows);
  const ctx = { table: { rows }, plan, integrityFacts: facts } as unknown as AnalysisContext;
  const result = perturbationAudit(ctx);
  assert.ok(!("skipped" in result), 'expected !("skipped" in result)');
  return result;
}

describe("the audit analysis on constructed rows", () => {
  const result = runAudit();
  const cell = (b: string) => result.cells.find((c) => c.benchmark === b)!;

  test("family deltas and CSR as computed by hand, with the parse failure's pairs dropped symmetrically", () => {
    const c = cell("selective");
    // 39 usable items: attribute moves items 0-19 fully, format moves a third of items 0, 10, 20, 30.
    assert.equal(c.deltas.attribute.items, ITEMS - 1);
    assert.equal(c.deltas.attribute.droppedPairs, 3);
    assert.ok(
      Math.abs(c.deltas.attribute.delta! - 20 / 39) < 1e-12,
      "expected Math.abs(c.deltas.attribute.delta! - 20 / 39) < 1e-12",
    );
    assert.ok(
      Math.abs(c.deltas.format.delta! - 4 / 3 / 39) < 1e-12,
      "expected Math.abs(c.deltas.format.delta! - 4 / 3 / 39) < 1e-12",
    );
    assert.equal(c.deltas.semantic.delta, 0);
    assert.equal(c.deltas.placebo.delta, 0);
    assert.ok(Math.abs(c.csr! - 20 / 39 / (4 / 117)) < 1e-9, `CSR ${c.csr}`);
    assert.equal(c.csrPlacebo, 0);
    assert.equal(c.seedCv, 0);
    assert.equal(c.parseability.droppedPairs, 36, "the failed original's 36 perturbed pairs");
  });

  test("selective: CI wholly above 1, held as exploratory while G6 is proposed (step 5)", () => {
    const c = cell("selective");
    assert.ok(c.ci[0]! > 1, `CI ${c.ci}`);
    assert.equal(c.support, 1);
    assert.equal(c.status.raw, "selective");
    assert.equal(c.status.step, 5);
    assert.equal(c.status.bucket, "exploratory");
  });

  test("non-selective: CSR (4/3/40) / 0.5 with a CI wholly below 1", () => {
    const c = cell("nonselective");
    assert.equal(c.deltas.format.delta, 0.5);
    assert.ok(Math.abs(c.csr! - 4 / 3 / 40 / 0.5) < 1e-12, `CSR ${c.csr}`);
    assert.ok(c.ci[1]! < 1, "expected c.ci[1]! < 1");
    assert.equal(c.status.raw, "non_selective");
  });

  test("a family that is a 100% silent no-op fails G1: ineligible (F1), whatever its CSR", () => {
    const c = cell("noop");
    assert.equal(c.noOp.families.format.rate, 1);
    assert.equal(c.status.raw, "not_applicable");
    assert.equal(c.status.bucket, "ineligible (F1)");
    assert.equal(result.counts["ineligible (F1)"], 1);
  });

  test("G5 is proposed by default, as in the paper's Table 1: attesting G6 alone keeps the cell exploratory", () => {
    assert.equal(result.plan.g5, "proposed", "the default G5 status is the paper's");
    const g5 = cell("selective").status.gates.find((g) => g.id === "G5")!;
    assert.equal(g5.implementation, "proposed", "the cell's G5 reads proposed");
    const g6Only = runAudit(normalizePlan({ audit: { resamples: 400, g6: "implemented" } }));
    const c = g6Only.cells.find((x) => x.benchmark === "selective")!;
    assert.equal(c.status.bucket, "exploratory", "G5 proposed holds a selective verdict as exploratory");
    assert.ok(
      auditSummaryLines(g6Only).some((l) => l.includes("G5 proposed")),
      "the card names G5 as proposed",
    );
  });

  test("an invariance archetype (declared for an inline benchmark) makes a passing cell ineligible (F5)", () => {
    const { rows, facts } = build();
    const audit = facts.audit as Exclude<NonNullable<typeof facts.audit>, { unavailable: string }>;
    audit.benchmarks.selective = { ...audit.benchmarks.selective, archetype: "invariance", archetypeSource: "spec" };
    const plan = normalizePlan({ audit: { resamples: 400 } });
    const ctx = { table: { rows }, plan, integrityFacts: facts } as unknown as AnalysisContext;
    const out = perturbationAudit(ctx);
    assert.ok(!("skipped" in out), "the audit ran");
    const c = out.cells.find((x) => x.benchmark === "selective")!;
    assert.equal(c.archetype, "invariance", "the cell carries the declared archetype");
    assert.equal(c.status.bucket, "ineligible (F5)", "step 4 fires: CSR is a diagnostic ratio");
    assert.equal(c.status.step, 4, "the F5 step");
  });

  test("with G5 and G6 attested, the selective cell is confirmatory-selective (step 6)", () => {
    const attested = runAudit(normalizePlan({ audit: { resamples: 400, g5: "implemented", g6: "implemented" } }));
    const c = attested.cells.find((x) => x.benchmark === "selective")!;
    assert.equal(c.status.bucket, "confirmatory-selective");
    assert.equal(c.status.step, 6);
    assert.equal(
      attested.cells.find((x) => x.benchmark === "nonselective")!.status.bucket,
      "confirmatory-non-selective",
    );
  });

  test("the sweep varies G3, ε and the G1 cap over App. E's grids", () => {
    assert.deepEqual([...new Set(result.sweep.settings.map((s) => s.knob))], ["g3", "epsilon", "noOpCap"]);
    assert.equal(result.sweep.settings.length, 9);
  });

  test("a CSR of 0 at every seed: G4 says why the seed CV has no value, and no card prints undefined or NaN", () => {
    // The non-selective benchmark with its attribute family undone: |Δ_attr| = 0 at every seed.
    const flat = runAudit(undefined, (rows) => {
      for (const row of rows)
        if (row.benchmark === "nonselective" && row.facets.perturbation.startsWith("attribute")) row.outcome = 1;
    });
    const c = flat.cells.find((x) => x.benchmark === "nonselective")!;
    assert.deepEqual(
      c.seedCsr.map((s) => s.csr),
      [0, 0, 0],
    );
    assert.equal(c.seedCv, null);
    const g4 = c.status.gates.find((g) => g.id === "G4")!;
    assert.equal(g4.passed, false);
    assert.equal(g4.detail, "seed_cv: n/a: CSR is 0 at every seed, so its CV (SD / mean) has no value");
    assert.equal(c.status.reason, `G4: ${g4.detail}`);
    const text = [auditMarkdown(flat, "flat"), ...auditSummaryLines(flat)].join("\n");
    assert.ok(text.includes("seed_cv: n/a: CSR is 0 at every seed"), "the gate card gives G4's reason");
    const bad = text.split("\n").filter((line) => /\bundefined\b|\bNaN\b/.test(line));
    assert.deepEqual(bad, [], "no card line prints undefined or NaN");
  });

  test("an unpaired bootstrap cannot be requested", () => {
    assert.throws(() => parsePlan({ audit: { resampling: "independent" } }, "analysis"), /audit\.resampling/);
    assert.throws(() => parsePlan({ audit: { paired: false } }, "analysis"), /audit/);
  });
});
