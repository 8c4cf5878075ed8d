import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jonckheereExact, jonckheereTerpstra, kendallTauB, RandomStream } from "../../src/stats/index.js";

describe("Jonckheere-Terpstra", () => {
  it("equals Kendall's test between group order and y (same z, same p), with ties", () => {
    const groups = [
      [1, 2, 2, 3, 5],
      [2, 3, 3, 4],
      [3, 4, 6, 6, 7, 2],
    ];
    const jt = jonckheereTerpstra(groups);
    const order = groups.flatMap((g, k) => g.map(() => k));
    const kendall = kendallTauB(order, groups.flat());
    assert.ok(
      Math.abs(jt.statistic - jt.mean - (kendall.concordant - kendall.discordant) / 2) < 1e-12,
      "expected Math.abs(jt.statistic - jt.mean - (kendall.concordant - kendall.discordant) / 2) < 1e-12",
    );
    assert.ok(
      Math.abs(jt.pTwoSided - kendall.pAsymptotic) < 1e-14,
      "expected Math.abs(jt.pTwoSided - kendall.pAsymptotic) < 1e-14",
    );
    assert.ok(
      jt.hasTies && jt.variance < jt.varianceWithoutTieCorrection,
      "expected jt.hasTies && jt.variance < jt.varianceWithoutTieCorrection",
    );
  });

  it("detects a planted increasing trend and its direction", () => {
    const stream = RandomStream.fromSeed(14);
    const groups = [0, 0.4, 0.8, 1.2].map((shift) => Array.from({ length: 15 }, () => shift + stream.normal()));
    const jt = jonckheereTerpstra(groups);
    assert.ok(
      jt.pIncreasing < 1e-3 && jt.pDecreasing > 0.99,
      "expected jt.pIncreasing < 1e-3 && jt.pDecreasing > 0.99",
    );
    const flat = [0, 0, 0].map(() => Array.from({ length: 15 }, () => stream.normal()));
    assert.ok(jonckheereTerpstra(flat).pTwoSided > 1e-3, "expected jonckheereTerpstra(flat).pTwoSided > 1e-3");
  });

  it("exact p by enumeration: the most extreme ordering has p = 1/#assignments", () => {
    const exact = jonckheereExact([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    assert.equal(exact.assignments, 90);
    assert.equal(exact.pIncreasing, 1 / 90);
    assert.equal(exact.pDecreasing, 1);
    assert.throws(() => jonckheereExact([Array(10).fill(0), Array(10).fill(1), Array(10).fill(2)], 1000), RangeError);
  });
});
