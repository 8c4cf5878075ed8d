import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  inducedOrdering,
  pairwiseFlip,
  parseCleanConfigurations,
  RandomStream,
  rankFlipSummary,
  reachedOrderings,
  selectConfigurations,
  strictSignCounts,
} from "../../src/stats/index.js";

const close = (x: number, y: number, tol = 1e-12) => Math.abs(x - y) <= tol;

describe("strict-sign counts and rho_flip (SafetyRepro §4 Prop. 1, §5.1 eq. 2)", () => {
  it("counts strict wins, losses and ties (hand-computed)", () => {
    const a = [0.5, 0.6, 0.4, 0.5];
    const b = [0.4, 0.7, 0.4, 0.5];
    assert.deepEqual(strictSignCounts(a, b), { nPlus: 1, nMinus: 1, nZero: 2 });
    const flip = pairwiseFlip(a, b);
    assert.equal(flip.rhoFlip, 1 / 4);
    assert.equal(flip.ceiling, 2 / 4);
    assert.equal(flip.saturated, false);
    assert.equal(flip.d1, false);
    assert.equal(flip.d2, false);
    // 2 N+ N- / (|C|(|C|-1)) = 2 / 12: below rho_flip here, so §5.1's "lower bound" needs few ties.
    assert.ok(
      flip.pairDisagreement !== null && close(flip.pairDisagreement, 2 / 12),
      "expected flip.pairDisagreement !== null && close(flip.pairDisagreement, 2 / 12)",
    );
  });

  it("D1 without D2: N+ = 0, N- > 0, N0 > 0 (the paper's example)", () => {
    const flip = pairwiseFlip([0.3, 0.4, 0.5], [0.5, 0.6, 0.5]);
    assert.deepEqual([flip.nPlus, flip.nMinus, flip.nZero], [0, 2, 1]);
    assert.equal(flip.rhoFlip, 0);
    assert.equal(flip.d1, true);
    assert.equal(flip.d2, false);
  });

  it("D2 holds for strict dominance and for all-equal scores", () => {
    const dominance = pairwiseFlip([0.9, 0.8, 0.7], [0.1, 0.2, 0.3]);
    assert.equal(dominance.d1 && dominance.d2, true);
    assert.equal(dominance.rhoFlip, 0);
    const equal = pairwiseFlip([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]);
    assert.deepEqual([equal.nPlus, equal.nMinus, equal.nZero], [0, 0, 3]);
    assert.equal(equal.d1 && equal.d2, true);
    assert.equal(equal.saturated, false);
  });

  it("flags a saturated rho_flip at the ceiling floor(|C|/2)/|C|, for even and odd |C|", () => {
    const even = pairwiseFlip([0.6, 0.7, 0.4, 0.3], [0.5, 0.5, 0.5, 0.5]);
    assert.equal(even.rhoFlip, 0.5);
    assert.equal(even.saturated, true);
    const odd = pairwiseFlip([0.6, 0.7, 0.4, 0.3, 0.2], [0.5, 0.5, 0.5, 0.5, 0.5]);
    assert.equal(odd.rhoFlip, 2 / 5);
    assert.equal(odd.ceiling, 2 / 5);
    assert.equal(odd.saturated, true);
    // A tie takes a configuration out of both N+ and N-: 2/1/1 on |C| = 4 is below the ceiling.
    const withTie = pairwiseFlip([0.6, 0.7, 0.4, 0.5], [0.5, 0.5, 0.5, 0.5]);
    assert.equal(withTie.rhoFlip, 1 / 4);
    assert.equal(withTie.saturated, false);
  });

  it("rho_flip is symmetric, bounded by its ceiling and by the pair-disagreement rate (random grids)", () => {
    const stream = RandomStream.fromSeed(9);
    for (let trial = 0; trial < 50; trial++) {
      const n = 1 + stream.integer(20);
      const a = Array.from({ length: n }, () => stream.integer(5) / 4);
      const b = Array.from({ length: n }, () => stream.integer(5) / 4);
      const ab = pairwiseFlip(a, b);
      const ba = pairwiseFlip(b, a);
      assert.equal(ab.rhoFlip, ba.rhoFlip);
      assert.equal(ab.nPlus, ba.nMinus);
      assert.ok(ab.rhoFlip <= ab.ceiling + 1e-15, `rho ${ab.rhoFlip} <= ceiling ${ab.ceiling}`);
      assert.equal(ab.d1, ab.rhoFlip === 0);
      // Pair disagreement counted configuration pair by configuration pair.
      let opposite = 0;
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) if (Math.sign(a[i] - b[i]) * Math.sign(a[j] - b[j]) < 0) opposite++;
      }
      if (n > 1) {
        const pairs = (n * (n - 1)) / 2;
        assert.ok(ab.pairDisagreement !== null && close(ab.pairDisagreement, opposite / pairs), `trial ${trial}`);
        if (Math.max(ab.nPlus, ab.nMinus) >= (n - 1) / 2) {
          assert.ok(ab.rhoFlip <= ab.pairDisagreement + 1e-15, "rho_flip is a lower bound (§5.1) without many ties");
        }
      }
    }
  });
});

describe("induced orderings and reachability (§5.1, Table 2; App. X tie-break)", () => {
  it("breaks ties alphabetically, whatever the roster order", () => {
    // App. X: Qwen and Yi at 0.6255 each -> "qwen >= yi > mistral".
    assert.deepEqual(inducedOrdering(["mistral", "qwen", "yi"], [0.5, 0.6255, 0.6255]), ["qwen", "yi", "mistral"]);
    assert.deepEqual(inducedOrdering(["yi", "qwen", "mistral"], [0.6255, 0.6255, 0.5]), ["qwen", "yi", "mistral"]);
  });

  it("counts distinct orderings: all 3! reached by a constructed envelope", () => {
    const models = ["a", "b", "c"];
    const scores = [
      [0.9, 0.5, 0.1],
      [0.9, 0.1, 0.5],
      [0.5, 0.9, 0.1],
      [0.1, 0.9, 0.5],
      [0.5, 0.1, 0.9],
      [0.1, 0.5, 0.9],
      [0.8, 0.5, 0.1],
    ];
    const out = rankFlipSummary({ models, scores });
    assert.equal(out.orderings.length, 6);
    assert.equal(out.possibleOrderings, 6);
    assert.equal(out.orderingRate, 1);
    assert.deepEqual(out.orderings[0], { ordering: ["a", "b", "c"], configurations: 2 });
    assert.equal(
      out.orderings.reduce((total, o) => total + o.configurations, 0),
      scores.length,
    );
  });

  it("reports every pair and the maximum rho_flip (recounted from the grid)", () => {
    const models = ["mistral", "qwen", "yi"];
    const scores = [
      [0.5, 0.6, 0.7],
      [0.6, 0.5, 0.7],
      [0.7, 0.6, 0.5],
      [0.5, 0.5, 0.6],
    ];
    const out = rankFlipSummary({ models, scores });
    assert.equal(out.pairs.length, 3);
    for (const pair of out.pairs) {
      const i = models.indexOf(pair.modelA);
      const j = models.indexOf(pair.modelB);
      const plus = scores.filter((row) => row[i] > row[j]).length;
      const minus = scores.filter((row) => row[i] < row[j]).length;
      assert.equal(pair.rhoFlip, Math.min(plus, minus) / scores.length, `${pair.modelA}-${pair.modelB}`);
    }
    assert.equal(out.rhoFlipMax, Math.max(...out.pairs.map((p) => p.rhoFlip)));
    // mistral vs yi: N+ = 1, N- = 3 -> 1/4; mistral vs qwen: 2 vs 1 (one tie) -> 1/4; qwen vs yi: 1 vs 3 -> 1/4
    assert.equal(out.rhoFlipMax, 1 / 4);
    // Row 4 ties mistral and qwen: broken alphabetically -> yi, mistral, qwen.
    assert.deepEqual(reachedOrderings({ models, scores: [scores[3]] })[0].ordering, ["yi", "mistral", "qwen"]);
  });

  it("refuses a ragged grid or a single model", () => {
    assert.throws(() => rankFlipSummary({ models: ["a", "b"], scores: [[0.1, 0.2], [0.3]] }), RangeError);
    assert.throws(() => rankFlipSummary({ models: ["a"], scores: [[0.1]] }), RangeError);
  });
});

describe("parse-clean restriction (SafetyRepro App. D, §5.1)", () => {
  it("keeps the configurations where every model parses at >= 0.95, and the metrics follow", () => {
    const grid = {
      models: ["a", "b"],
      scores: [
        [0.6, 0.5],
        [0.4, 0.5],
        [0.7, 0.5],
        [0.3, 0.5],
      ],
    };
    const parseRates = [
      [1, 0.99],
      [0.94, 1],
      [0.95, 0.95],
      [1, 0.5],
    ];
    const clean = parseCleanConfigurations(parseRates);
    assert.deepEqual(clean, [0, 2]);
    const full = rankFlipSummary(grid);
    const restricted = rankFlipSummary(selectConfigurations(grid, clean));
    assert.equal(full.pairs[0].rhoFlip, 2 / 4);
    assert.equal(restricted.configurations, clean.length);
    assert.equal(restricted.pairs[0].rhoFlip, 0);
    assert.throws(() => selectConfigurations(grid, [4]), RangeError);
  });
});
