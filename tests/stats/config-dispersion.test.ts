import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  complianceFlipRate,
  complianceFlipRateAtMedian,
  complianceFlipRateCeiling,
  complianceFlipRates,
  RandomStream,
  scoreDispersion,
} from "../../src/stats/index.js";

const close = (x: number, y: number, tol = 1e-12) => Math.abs(x - y) <= tol;

/** The share of unordered configuration pairs with different verdicts, counted pair by pair. */
function discordantPairShare(scores: readonly number[], theta: number): number {
  let discordant = 0;
  let pairs = 0;
  for (let i = 0; i < scores.length; i++) {
    for (let j = i + 1; j < scores.length; j++) {
      pairs++;
      if (scores[i] >= theta !== scores[j] >= theta) discordant++;
    }
  }
  return discordant / pairs;
}

describe("SDI (SafetyRepro §4)", () => {
  it("is (max - min) / mean with the absolute range beside it", () => {
    const scores = [0.6, 0.2, 0.8, 0.4];
    const out = scoreDispersion(scores);
    // mean = 2.0 / 4 = 0.5, range = 0.8 - 0.2 = 0.6, SDI = 1.2
    assert.equal(out.n, 4);
    assert.equal(out.min, 0.2);
    assert.equal(out.max, 0.8);
    assert.ok(close(out.mean, 0.5), `mean ${out.mean}`);
    assert.ok(close(out.range, 0.6), `range ${out.range}`);
    assert.ok(out.sdi !== null && close(out.sdi, 1.2), `sdi ${out.sdi}`);
  });

  it("is 0 on all-equal scores and undefined (null) when the mean is 0", () => {
    assert.equal(scoreDispersion([0.7, 0.7, 0.7]).sdi, 0);
    assert.equal(scoreDispersion([0, 0, 0]).sdi, null);
  });

  it("refuses an empty or non-finite slice", () => {
    assert.throws(() => scoreDispersion([]), RangeError);
    assert.throws(() => scoreDispersion([0.5, Number.NaN]), RangeError);
  });
});

describe("CFR_theta (SafetyRepro §4, App. L)", () => {
  it("equals the share of configuration pairs whose pass/fail verdicts differ", () => {
    const stream = RandomStream.fromSeed(41);
    for (const n of [2, 3, 7, 12, 48]) {
      // Scores on a 0.05 grid so that some land exactly on a threshold.
      const scores = Array.from({ length: n }, () => Math.round(stream.uniform() * 20) / 20);
      for (const theta of [0.5, 0.6, 0.7, 0.8]) {
        const out = complianceFlipRate(scores, theta);
        assert.ok(out.cfr !== null && close(out.cfr, discordantPairShare(scores, theta)), `n=${n} theta=${theta}`);
        assert.equal(out.passing, scores.filter((s) => s >= theta).length);
      }
    }
  });

  it("counts a score equal to theta as passing", () => {
    const out = complianceFlipRate([0.5, 0.4], 0.5);
    assert.equal(out.passing, 1);
    // one pair, discordant: 2n/(n-1) p(1-p) = 4 * 1/4 = 1
    assert.equal(out.cfr, 1);
  });

  it("is 0 on all-equal scores at any threshold, and undefined for one configuration", () => {
    for (const theta of [0.5, 0.7, 0.71]) assert.equal(complianceFlipRate([0.7, 0.7, 0.7, 0.7], theta).cfr, 0);
    const single = complianceFlipRate([0.9], 0.5);
    assert.equal(single.cfr, null);
    assert.equal(single.ceiling, null);
  });

  it("reports the App. L ceilings, recomputed: 51.06% at n = 48 and 54.55% at n = 12", () => {
    // Published in App. L as percentages rounded to two decimals.
    assert.equal((100 * complianceFlipRateCeiling(48)).toFixed(2), "51.06");
    assert.equal((100 * complianceFlipRateCeiling(12)).toFixed(2), "54.55");
  });

  it("for odd n the ceiling is the attainable maximum (n + 1) / (2n), below App. L's algebraic 2n/(n-1) * 1/4", () => {
    // n = 47: 23 or 24 of 47 configurations pass; p = 1/2 is not a pass fraction of 47.
    assert.equal(complianceFlipRateCeiling(47), (2 * 23 * 24) / (47 * 46));
    assert.equal((100 * complianceFlipRateCeiling(47)).toFixed(2), "51.06");
    assert.equal((100 * ((2 * 47) / 46) * 0.25).toFixed(2), "51.09", "the algebraic bound, not reachable at n = 47");
    for (const n of [3, 11, 47]) {
      assert.ok(close(complianceFlipRateCeiling(n), (n + 1) / (2 * n)), `n=${n}: (n + 1)/(2n)`);
      assert.ok(complianceFlipRateCeiling(n) < ((2 * n) / (n - 1)) * 0.25, `n=${n}: below the algebraic bound`);
    }
  });

  it("ceiling = the largest CFR of any pass/fail split, reached by an even split", () => {
    for (let n = 2; n <= 15; n++) {
      let best = 0;
      for (let k = 0; k <= n; k++) {
        const scores = Array.from({ length: n }, (_, i) => (i < k ? 0.9 : 0.1));
        best = Math.max(best, complianceFlipRate(scores, 0.5).cfr ?? Number.NaN);
      }
      assert.ok(close(complianceFlipRateCeiling(n), best), `n=${n}: ${complianceFlipRateCeiling(n)} vs ${best}`);
      if (n % 2 === 0) assert.ok(close(best, ((2 * n) / (n - 1)) * 0.25), `even n=${n} hits 2n/(n-1)/4`);
    }
  });

  it("reaches its ceiling on a 6/6 split of n = 12", () => {
    const scores = [0.9, 0.8, 0.75, 0.72, 0.71, 0.7, 0.69, 0.6, 0.55, 0.5, 0.4, 0.3];
    const out = complianceFlipRate(scores, 0.7);
    assert.equal(out.passing, 6);
    assert.ok(out.cfr !== null && out.ceiling !== null && close(out.cfr, out.ceiling), `${out.cfr} vs ${out.ceiling}`);
  });

  it("at the slice's own median equals the ceiling for distinct scores (App. L median panel)", () => {
    const stream = RandomStream.fromSeed(5);
    for (const n of [12, 13, 48]) {
      const scores = Array.from({ length: n }, () => stream.uniform());
      const out = complianceFlipRateAtMedian(scores);
      assert.ok(out.cfr !== null && close(out.cfr, complianceFlipRateCeiling(n)), `n=${n}: ${out.cfr}`);
    }
  });

  it("evaluates a list of thresholds in order", () => {
    const scores = [0.45, 0.55, 0.65, 0.75, 0.85];
    const out = complianceFlipRates(scores, [0.5, 0.6, 0.7, 0.8]);
    assert.deepEqual(
      out.map((r) => r.theta),
      [0.5, 0.6, 0.7, 0.8],
    );
    assert.deepEqual(
      out.map((r) => r.passing),
      [4, 3, 2, 1],
    );
  });
});
