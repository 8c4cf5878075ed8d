import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agreementTable, cohensKappa, RandomStream } from "../../src/stats/index.js";

const LABELS = ["comply", "partial", "refuse"];

function raters(seed: number, n: number, agreeRate: number): [string[], string[]] {
  const stream = RandomStream.fromSeed(seed);
  const first: string[] = [];
  const second: string[] = [];
  for (let i = 0; i < n; i++) {
    const label = LABELS[stream.integer(3)];
    first.push(label);
    second.push(stream.uniform() < agreeRate ? label : LABELS[stream.integer(3)]);
  }
  return [first, second];
}

describe("Cohen's kappa", () => {
  it("is 1 for perfect agreement", () => {
    const k = cohensKappa([
      [30, 0],
      [0, 20],
    ]);
    assert.equal(k.kappa, 1);
    assert.equal(k.kappaMax, 1);
  });

  it("recovers a planted agreement level: kappa = agreeRate when disagreements are uniform", () => {
    // Rater 2 copies rater 1 with probability a, else labels uniformly: kappa = a for uniform marginals.
    const [r1, r2] = raters(5, 6000, 0.6);
    const k = cohensKappa(agreementTable(LABELS, r1, r2));
    assert.ok(k.ci[0] < 0.6 && 0.6 < k.ci[1], `${k.ci}`);
    assert.ok(k.pTwoSided < 1e-100, "expected k.pTwoSided < 1e-100");
  });

  it("does not detect agreement between independent raters", () => {
    const [r1, r2] = raters(6, 3000, 0);
    const k = cohensKappa(agreementTable(LABELS, r1, r2));
    assert.ok(Math.abs(k.z) < 4, "expected Math.abs(k.z) < 4");
    assert.ok(k.ci[0] < 0 && 0 < k.ci[1], "expected k.ci[0] < 0 && 0 < k.ci[1]");
  });

  it("rejects unknown labels and non-square tables", () => {
    assert.throws(() => agreementTable(["a", "b"], ["a"], ["c"]), RangeError);
    assert.throws(() => cohensKappa([[1, 2]]), RangeError);
  });
});
