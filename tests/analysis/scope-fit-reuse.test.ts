// A scope's fit reused for the same rows and setup: the same numbers as a fresh fit, another
// setup or other rows fitted anew, and the planted effect recovered.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { casesByLevel, caseKey, fitScopeGlm, scoredRows } from "../../src/analysis/index.js";
import { coefficientTable } from "../../src/stats/index.js";
import { plantedTable } from "./helpers.js";

const table = plantedTable({
  seed: 5,
  models: { "m-a": -0.05, "m-b": 0.05 },
  benchmarks: ["bbq", "tqa"],
  itemsPerBenchmark: 120,
  effects: { direct: 0, react: -0.02, map_reduce: -0.2 },
  parseFailureRate: 0.03,
});
const setup = { comparisonFacet: "scaffold", reference: "direct", covariateFacets: [] };

describe("scope fits reused across analyses", () => {
  it("gives the fresh fit's numbers for the same rows and setup, and fits another setup anew", () => {
    const scored = scoredRows(table.rows, "itt");
    const first = fitScopeGlm(scored, setup);
    const again = fitScopeGlm(scored, setup);
    assert.equal(again.fit, first.fit, "the same rows and setup share one fit");
    // A copy of the rows is another array: fitted anew, to the same numbers.
    const fresh = fitScopeGlm([...scored], setup);
    assert.notEqual(fresh.fit, first.fit, "a copied array is fitted anew");
    assert.deepStrictEqual(coefficientTable(again.fit, "cluster"), coefficientTable(fresh.fit, "cluster"));
    assert.deepStrictEqual([...again.fit.covariance.cluster!], [...fresh.fit.covariance.cluster!]);
    const unadjusted = fitScopeGlm(scored, { ...setup, adjust: false });
    assert.equal(unadjusted.formula, "outcome ~ scaffold", "another setup has its own formula");
    assert.notEqual(unadjusted.fit, first.fit, "another setup is fitted anew");
  });

  it("recovers the planted harm of map_reduce and not of react", () => {
    const scored = scoredRows(table.rows, "pp");
    const rows = coefficientTable(fitScopeGlm(scored, setup).fit, "cluster");
    const mapReduce = rows.find((r) => r.name === "scaffold[T.map_reduce]");
    assert.ok(
      mapReduce && mapReduce.ciUpper < 0 && mapReduce.p < 1e-6,
      `map_reduce harms: ${JSON.stringify(mapReduce)}`,
    );
    const react = rows.find((r) => r.name === "scaffold[T.react]");
    assert.ok(react && react.estimate > -0.5 && react.estimate < 0.3, `react is close to none: ${react?.estimate}`);
  });

  it("builds each level's cases once per case", () => {
    const cases = casesByLevel(table.rows, "scaffold");
    for (const level of ["direct", "react", "map_reduce"]) {
      const expected = new Set(table.rows.filter((r) => r.facets.scaffold === level).map(caseKey));
      assert.deepStrictEqual(cases.get(level), expected, `the cases of ${level}`);
    }
  });
});
