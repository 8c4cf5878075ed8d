import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  absoluteGapSummary,
  orderingAgreement,
  quantizationEffect,
  scoringMethodEffect,
} from "../../src/stats/index.js";

const close = (x: number, y: number, tol = 1e-12) => Math.abs(x - y) <= tol;

describe("scoring-method and quantization effects (SafetyRepro App. V, App. O)", () => {
  it("summarises |free-form - logprob| over matched greedy configurations (hand-computed)", () => {
    const freeForm = [0.6, 0.5, 0.7, 0.2];
    const logprob = [0.5, 0.55, 0.3, 0.2];
    const out = scoringMethodEffect(freeForm, logprob);
    // gaps 0.1, 0.05, 0.4, 0: mean 0.1375, max 0.4 at index 2, median (0.05 + 0.1) / 2
    assert.equal(out.n, 4);
    assert.ok(close(out.mean, 0.1375), `mean ${out.mean}`);
    assert.ok(close(out.max, 0.4), `max ${out.max}`);
    assert.equal(out.argMax, 2);
    assert.ok(close(out.median, 0.075), `median ${out.median}`);
  });

  it("summarises |s_a - s_b| over paired precisions; all-equal pairs give 0", () => {
    const out = quantizationEffect([0.5, 0.6, 0.7], [0.52, 0.5, 0.7]);
    assert.ok(close(out.median, 0.02) && close(out.mean, 0.04) && close(out.max, 0.1), JSON.stringify(out));
    const same = absoluteGapSummary([0.3, 0.3], [0.3, 0.3]);
    assert.deepEqual([same.median, same.mean, same.max], [0, 0, 0]);
    assert.throws(() => quantizationEffect([0.1], [0.1, 0.2]), RangeError);
    assert.throws(() => quantizationEffect([], []), RangeError);
  });

  it("ordering agreement: identical orderings, a one-pair flip, a two-pair reversal and a tie", () => {
    const models = ["mistral", "qwen", "yi"];
    const cells = [
      { scoresA: [0.3, 0.6, 0.5], scoresB: [0.31, 0.62, 0.48] },
      // App. O's divergent cell: qwen > yi > mistral becomes yi > qwen > mistral
      { scoresA: [0.3, 0.6, 0.5], scoresB: [0.3, 0.5, 0.6] },
      // mistral goes from last to first: two pairs reverse
      { scoresA: [0.3, 0.6, 0.5], scoresB: [0.7, 0.6, 0.5] },
      // qwen and yi tie under B: broken alphabetically (qwen first), the ordering matches, no strict flip
      { scoresA: [0.3, 0.6, 0.5], scoresB: [0.3, 0.55, 0.55] },
    ];
    const out = orderingAgreement(models, cells);
    assert.equal(out.cells, cells.length);
    assert.equal(out.matching, 2);
    assert.equal(out.rate, 2 / cells.length);
    assert.deepEqual(out.pairFlips, [0, 1, 2, 0]);
    assert.equal(out.multiPairReversals, 1);
  });
});
