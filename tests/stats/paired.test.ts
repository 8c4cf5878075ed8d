import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  flipRates,
  mcnemarTest,
  pairedProportionDifference,
  pairedTableFromOutcomes,
  RandomStream,
} from "../../src/stats/index.js";

describe("paired binary outcomes", () => {
  it("cross-tabulates aligned outcome vectors as [[n11, n10], [n01, n00]]", () => {
    assert.deepEqual(pairedTableFromOutcomes([1, 1, 0, 0, 1], [1, 0, 1, 0, 0]), [
      [1, 2],
      [1, 1],
    ]);
    assert.throws(() => pairedTableFromOutcomes([1], [1, 0]), RangeError);
    assert.throws(() => pairedTableFromOutcomes([2], [1]), RangeError);
  });

  it("recovers a planted paired difference inside its CI and detects it with McNemar", () => {
    // Condition B flips 12% of A's successes to failures and 4% of A's failures to successes.
    const stream = RandomStream.fromSeed(17);
    const n = 3000;
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < n; i++) {
      const outcomeA = stream.bernoulli(0.6);
      const outcomeB = outcomeA === 1 ? 1 - stream.bernoulli(0.12) : stream.bernoulli(0.04);
      a.push(outcomeA);
      b.push(outcomeB);
    }
    const table = pairedTableFromOutcomes(a, b);
    const planted = 0.6 * 0.12 - 0.4 * 0.04; // p_A - p_B
    const r = pairedProportionDifference(table);
    assert.ok(r.ci[0] < planted && planted < r.ci[1], `${r.ci} vs ${planted}`);
    assert.ok(r.se < r.seIndependent, "expected r.se < r.seIndependent");
    const m = mcnemarTest(table);
    assert.ok(
      m.exact.p < 1e-10 && m.chiSquareCorrected.p < 1e-10,
      "expected m.exact.p < 1e-10 && m.chiSquareCorrected.p < 1e-10",
    );
    const flips = flipRates(table);
    assert.ok(
      Math.abs(flips.churn - (0.6 * 0.12 + 0.4 * 0.04)) < 0.02,
      "expected Math.abs(flips.churn - (0.6 * 0.12 + 0.4 * 0.04)) < 0.02",
    );
    assert.ok(Math.abs(flips.net + r.difference) < 1e-15, "expected Math.abs(flips.net + r.difference) < 1e-15");
  });

  it("McNemar: b = c gives the R convention (statistic 0, p = 1), b + c = 0 is undefined", () => {
    const m = mcnemarTest([
      [40, 7],
      [7, 40],
    ]);
    assert.deepEqual(m.chiSquareCorrected, { statistic: 0, p: 1 });
    assert.equal(m.exact.p, 1);
    assert.throws(
      () =>
        mcnemarTest([
          [5, 0],
          [0, 5],
        ]),
      RangeError,
    );
  });

  it("McNemar exact p matches a hand computation: b = 3, c = 0 gives 2 * 0.5^3", () => {
    const m = mcnemarTest([
      [60, 3],
      [0, 37],
    ]);
    assert.equal(m.exact.p, 0.25);
    assert.equal(m.chiSquareUncorrected.statistic, 3);
  });

  it("flip rates show churn even when the net change is zero", () => {
    const flips = flipRates([
      [50, 25],
      [25, 100],
    ]);
    assert.equal(flips.net, 0);
    assert.equal(flips.churn, 0.25);
  });
});
