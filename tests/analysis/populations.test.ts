/**
 * ITT and PP populations (ScaffoldSafety 6.3 / App. H) recomputed from the rows: intention to
 * treat scores a parse failure as unsafe (0) and keeps it; per protocol drops it. Rates, n and
 * RDs of both populations, and the parse-failure count, must match counts made here.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeStudy, normalizePlan, scoredPopulations, scoredRows } from "../../src/analysis/index.js";
import { plantedTable } from "./helpers.js";

describe("ITT and PP populations", async () => {
  const table = plantedTable({
    seed: 31,
    models: { "m-a": 0, "m-b": 0.05 },
    benchmarks: ["bbq", "tqa"],
    itemsPerBenchmark: 60,
    effects: { direct: 0, react: -0.1, map_reduce: -0.2 },
    parseFailureRate: 0.15,
  });
  const plan = normalizePlan({ bootstrap: { resamples: 200 }, specification_curve: false });
  const result = await analyzeStudy(table, plan, { now: () => new Date("2026-01-01T00:00:00Z") });
  const facet = result.meta.comparisonFacet;

  /** Successes and n of a condition in a population, counted from the rows. */
  function counted(condition: string, population: "itt" | "pp") {
    const rows = table.rows.filter((r) => r.facets[facet] === condition && (population === "itt" || !r.parseFailed));
    const successes = rows.filter((r) => !r.parseFailed && r.outcome === 1).length;
    return { successes, n: rows.length, rate: successes / rows.length };
  }

  it("counts the parse failures", () => {
    const failures = table.rows.filter((r) => r.parseFailed).length;
    assert.ok(failures > 0, "the table has parse failures");
    assert.equal(result.counts.parseFailures, failures);
  });

  for (const population of ["itt", "pp"] as const) {
    it(`${population}: rates, n and RDs of every condition`, () => {
      const contrasts = result.contrasts[population].pooled.contrasts;
      assert.equal(contrasts.length, result.meta.levels.length - 1);
      assert.ok(contrasts.length > 0, "contrasts present");
      const reference = counted(result.meta.reference, population);
      for (const c of contrasts) {
        const expected = counted(c.condition, population);
        assert.equal(c.rate?.n, expected.n, `${population} n of ${c.condition}`);
        assert.equal(c.rate?.successes, expected.successes, `${population} successes of ${c.condition}`);
        assert.equal(c.referenceRate.n, reference.n, `${population} reference n`);
        assert.equal(c.referenceRate.successes, reference.successes, `${population} reference successes`);
        const rd = c.riskDifference?.estimate;
        assert.ok(rd !== undefined && Math.abs(rd - (expected.rate - reference.rate)) < 1e-12, `${population} RD`);
      }
    });
  }

  it("both populations in one pass: scoredRows' rows and scores, a record shared where they agree", () => {
    // Errored and unscored rows beside the parse failures: neither population keeps them.
    const rows = table.rows.map((r, i) =>
      i % 17 === 0 ? { ...r, errored: true, outcome: null } : i % 23 === 0 ? { ...r, outcome: null } : r,
    );
    const both = scoredPopulations(rows);
    for (const population of ["itt", "pp"] as const)
      assert.deepEqual(both[population], scoredRows(rows, population), population);
    assert.ok(both.pp.length < both.itt.length, "PP leaves the parse failures out");
    const shared = new Set(both.itt);
    assert.ok(
      both.pp.every((s) => shared.has(s)),
      "each PP record is ITT's",
    );
  });
});
