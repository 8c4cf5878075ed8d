import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chiSquareGoodnessOfFit, RandomStream } from "../../src/stats/index.js";

describe("chi-square goodness of fit", () => {
  it("detects a planted departure from the hypothesised probabilities, not a match", () => {
    const stream = RandomStream.fromSeed(10);
    const tally = (probs: number[]) => {
      const counts = probs.map(() => 0);
      for (let i = 0; i < 2000; i++) {
        let u = stream.uniform();
        let k = 0;
        while (k < probs.length - 1 && u >= probs[k]) u -= probs[k++];
        counts[k]++;
      }
      return counts;
    };
    const hypothesis = [0.5, 0.3, 0.2];
    assert.ok(
      chiSquareGoodnessOfFit(tally([0.45, 0.3, 0.25]), hypothesis).p < 1e-3,
      "expected chiSquareGoodnessOfFit(tally([0.45, 0.3, 0.25]), hypothesis).p < 1e-3",
    );
    assert.ok(
      chiSquareGoodnessOfFit(tally(hypothesis), hypothesis).p > 1e-3,
      "expected chiSquareGoodnessOfFit(tally(hypothesis), hypothesis).p > 1e-3",
    );
  });

  it("uses uniform expectations by default and removes ddof degrees of freedom", () => {
    const r = chiSquareGoodnessOfFit([10, 10, 10, 10], null, 1);
    assert.deepEqual(r.expectedCounts, [10, 10, 10, 10]);
    assert.equal(r.df, 2);
    assert.equal(r.statistic, 0);
    assert.equal(r.p, 1);
  });

  it("rejects probabilities that do not sum to 1 and designs without degrees of freedom", () => {
    assert.throws(() => chiSquareGoodnessOfFit([1, 2], [0.5, 0.6]), RangeError);
    assert.throws(() => chiSquareGoodnessOfFit([1, 2], null, 1), RangeError);
  });
});
