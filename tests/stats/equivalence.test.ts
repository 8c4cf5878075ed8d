import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  marginSensitivity,
  RandomStream,
  smallestEquivalentMargin,
  tostFromBootstrap,
  tostPairedProportions,
  tostTwoProportions,
} from "../../src/stats/index.js";

describe("TOST equivalence", () => {
  it("the CI rule and p_TOST < alpha always agree", () => {
    const stream = RandomStream.fromSeed(21);
    for (let i = 0; i < 300; i++) {
      const n = 200 + stream.integer(3000);
      const counts = { x1: stream.binomial(n, 0.8), n1: n, x2: stream.binomial(n, 0.79), n2: n };
      const r = tostTwoProportions(counts, 0.03, 0.05);
      assert.equal(r.equivalent, r.pTost < 0.05, JSON.stringify(counts));
      assert.equal(r.pTost, Math.max(r.pLower, r.pUpper));
    }
  });

  it("declares a planted zero difference equivalent with large n, and not with small n", () => {
    const large = tostTwoProportions({ x1: 8000, n1: 10_000, x2: 8010, n2: 10_000 }, 0.02);
    assert.ok(large.equivalent && large.pTost < 1e-3, "expected large.equivalent && large.pTost < 1e-3");
    const small = tostTwoProportions({ x1: 40, n1: 50, x2: 40, n2: 50 }, 0.02);
    assert.ok(!small.equivalent && small.pTost > 0.3, "expected !small.equivalent && small.pTost > 0.3");
  });

  it("paired TOST uses the paired SE, which is much smaller for concordant pairs", () => {
    const table: [[number, number], [number, number]] = [
      [400, 12],
      [9, 579],
    ];
    const paired = tostPairedProportions(table, 0.02);
    const independent = tostTwoProportions({ x1: 412, n1: 1000, x2: 409, n2: 1000 }, 0.02);
    assert.ok(paired.se < independent.se / 3, "expected paired.se < independent.se / 3");
    assert.ok(paired.equivalent && !independent.equivalent, "expected paired.equivalent && !independent.equivalent");
  });

  it("judges bootstrap replicates by their 90% percentile interval", () => {
    const stream = RandomStream.fromSeed(4);
    const replicates = Float64Array.from({ length: 10_000 }, () => 0.005 + 0.01 * stream.normal());
    const r = tostFromBootstrap(replicates, 0.03);
    assert.ok(
      Math.abs(r.ciTost[0] - (0.005 - 1.645 * 0.01)) < 0.001,
      "expected Math.abs(r.ciTost[0] - (0.005 - 1.645 * 0.01)) < 0.001",
    );
    assert.ok(r.equivalent, "expected r.equivalent");
    assert.ok(
      !tostFromBootstrap(replicates, 0.02).equivalent,
      "expected !tostFromBootstrap(replicates, 0.02).equivalent",
    );
  });

  it("evaluates a list of margins at once; equivalence is monotone in the margin", () => {
    const counts = { x1: 1800, n1: 2000, x2: 1790, n2: 2000 };
    const margins = [0.01, 0.015, 0.02, 0.025, 0.03];
    const results = marginSensitivity(margins, (margin) => tostTwoProportions(counts, margin));
    const flags = results.map((r) => r.result.equivalent);
    assert.deepEqual(flags, [false, false, false, true, true]);
    const threshold = smallestEquivalentMargin(results[0].result.ciTost);
    assert.ok(threshold > 0.02 && threshold < 0.025, "expected threshold > 0.02 && threshold < 0.025");
    assert.ok(
      tostTwoProportions(counts, threshold + 1e-9).equivalent,
      "expected tostTwoProportions(counts, threshold + 1e-9).equivalent",
    );
    assert.ok(
      !tostTwoProportions(counts, threshold).equivalent,
      "expected !tostTwoProportions(counts, threshold).equivalent",
    );
  });

  it("requires a positive margin", () => {
    assert.throws(() => tostTwoProportions({ x1: 1, n1: 2, x2: 1, n2: 2 }, 0), RangeError);
  });
});
