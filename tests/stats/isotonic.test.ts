import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isotonicRegression, RandomStream } from "../../src/stats/index.js";

function squaredError(y: ArrayLike<number>, fit: ArrayLike<number>, w: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < y.length; i++) total += w[i] * (y[i] - fit[i]) ** 2;
  return total;
}

describe("isotonic regression", () => {
  it("returns a monotone fit that keeps the weighted total", () => {
    const stream = RandomStream.fromSeed(2);
    const y = Array.from({ length: 50 }, (_, i) => i / 50 + stream.normal() * 0.3);
    const w = y.map(() => 1 + stream.integer(10));
    for (const increasing of [true, false]) {
      const fit = isotonicRegression(y, { increasing, weights: w });
      for (let i = 1; i < fit.length; i++)
        assert.ok(
          increasing ? fit[i] >= fit[i - 1] : fit[i] <= fit[i - 1],
          "expected increasing ? fit[i] >= fit[i - 1] : fit[i] <= fit[i - 1]",
        );
      const total = (v: ArrayLike<number>) => Array.from(v).reduce((s, value, i) => s + w[i] * value, 0);
      assert.ok(Math.abs(total(fit) - total(y)) < 1e-9, "expected Math.abs(total(fit) - total(y)) < 1e-9");
    }
  });

  it("leaves monotone data unchanged and recovers a planted step function", () => {
    assert.deepEqual(Array.from(isotonicRegression([1, 2, 2, 5])), [1, 2, 2, 5]);
    const stream = RandomStream.fromSeed(3);
    const truth = Array.from({ length: 400 }, (_, i) => (i < 200 ? 0.2 : 0.7));
    const fit = isotonicRegression(truth.map((t) => t + 0.05 * stream.normal()));
    assert.ok(
      Math.abs(fit[100] - 0.2) < 0.05 && Math.abs(fit[300] - 0.7) < 0.05,
      "expected Math.abs(fit[100] - 0.2) < 0.05 && Math.abs(fit[300] - 0.7) < 0.05",
    );
  });

  it("is the least-squares monotone fit: no small monotone perturbation does better", () => {
    const y = [0.3, 0.25, 0.4, 0.38, 0.55, 0.5, 0.52, 0.7, 0.66];
    const w = [10, 20, 10, 30, 10, 10, 40, 10, 10];
    const fit = isotonicRegression(y, { weights: w });
    const best = squaredError(y, fit, w);
    const stream = RandomStream.fromSeed(4);
    for (let trial = 0; trial < 500; trial++) {
      const candidate = Array.from(fit, (v) => v + 0.01 * stream.normal()).sort((a, b) => a - b);
      assert.ok(
        squaredError(y, candidate, w) >= best - 1e-12,
        "expected squaredError(y, candidate, w) >= best - 1e-12",
      );
    }
  });

  it("rejects non-positive weights", () => {
    assert.throws(() => isotonicRegression([1, 2], { weights: [1, 0] }), RangeError);
  });
});
