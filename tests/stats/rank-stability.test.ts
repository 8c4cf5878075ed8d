import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { kendallTauB, rankConcordance, rankConcordanceNull } from "../../src/stats/index.js";

const close = (x: number, y: number, tol = 1e-12) => Math.abs(x - y) <= tol;

interface KendallReference {
  models: string[];
  scores: number[][];
  pairs: { a: number; b: number; tauB: number | null }[];
  tauR: number;
  pairsUsed: number;
}

// Produced by tests/fixtures/stats-grid/generate.py (scipy.stats.kendalltau, variant 'b').
const references = JSON.parse(
  readFileSync(fileURLToPath(new URL("../fixtures/stats-grid/references.json", import.meta.url)), "utf8"),
) as { kendall: KendallReference[] };

function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  return permutations(n - 1).flatMap((p) =>
    Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]),
  );
}

describe("tau_R (SafetyRepro §4)", () => {
  it("averages Kendall tau over every configuration pair (hand-computed, no ties)", () => {
    const grid = {
      models: ["mistral", "qwen", "yi"],
      scores: [
        [0.9, 0.5, 0.1],
        [0.8, 0.6, 0.2],
        [0.1, 0.5, 0.9],
      ],
    };
    const out = rankConcordance(grid);
    // pairs: (1,2) same order tau = 1; (1,3) and (2,3) reversed tau = -1; mean = -1/3
    assert.ok(out.tauR !== null && close(out.tauR, -1 / 3), `tauR ${out.tauR}`);
    assert.equal(out.pairsUsed, 3);
    // orderings differ on 2 of the 3 pairs
    assert.ok(
      out.totalOrderMismatchRate !== null && close(out.totalOrderMismatchRate, 2 / 3),
      "expected out.totalOrderMismatchRate !== null && close(out.totalOrderMismatchRate, 2 / 3)",
    );
  });

  it("handles ties at average ranks (tau-b), hand-computed", () => {
    const grid = {
      models: ["a", "b", "c"],
      scores: [
        [0.5, 0.5, 0.1],
        [0.9, 0.5, 0.1],
      ],
    };
    // (a,b) tied in the first: neither; (a,c), (b,c) concordant: C = 2, D = 0.
    // n0 = 3, ties in x: one pair, in y: none -> tau_b = 2 / sqrt((3 - 1) * 3)
    const out = rankConcordance(grid);
    assert.ok(out.tauR !== null && close(out.tauR, 2 / Math.sqrt(6)), `tauR ${out.tauR}`);
  });

  it("leaves out pairs with an all-tied configuration and says how many", () => {
    const grid = {
      models: ["a", "b", "c"],
      scores: [
        [0.5, 0.5, 0.5],
        [0.9, 0.5, 0.1],
        [0.8, 0.4, 0.2],
      ],
    };
    const out = rankConcordance(grid);
    assert.equal(out.pairsUndefined, 2);
    assert.equal(out.pairsUsed, 1);
    assert.equal(out.tauR, 1);
    const allEqual = rankConcordance({
      models: ["a", "b"],
      scores: [
        [0.3, 0.3],
        [0.3, 0.3],
      ],
    });
    assert.equal(allEqual.tauR, null);
    // Both configurations induce the same (alphabetical) total order.
    assert.equal(allEqual.totalOrderMismatchRate, 0);
  });

  it("matches scipy.stats.kendalltau pair by pair and on the mean (fixture grids with ties)", () => {
    assert.ok(references.kendall.length > 0, "fixture has grids");
    for (const ref of references.kendall) {
      assert.equal(ref.pairs.length, (ref.scores.length * (ref.scores.length - 1)) / 2);
      for (const pair of ref.pairs) {
        const tau = kendallTauB(ref.scores[pair.a], ref.scores[pair.b]).tauB;
        if (pair.tauB === null) assert.ok(Number.isNaN(tau), `pair ${pair.a},${pair.b} should be undefined`);
        else assert.ok(close(tau, pair.tauB, 1e-12), `pair ${pair.a},${pair.b}: ${tau} vs ${pair.tauB}`);
      }
      const out = rankConcordance({ models: ref.models, scores: ref.scores });
      assert.equal(out.pairsUsed, ref.pairsUsed);
      assert.ok(out.tauR !== null && close(out.tauR, ref.tauR, 1e-12), `tauR ${out.tauR} vs ${ref.tauR}`);
    }
  });

  it("null expectation: enumerating every pair of orderings gives E[tau] = 0, mismatch 1 - 1/M!, inversion 1/2", () => {
    for (const m of [2, 3, 4]) {
      const orders = permutations(m);
      let tauSum = 0;
      let mismatches = 0;
      let inversions = 0;
      let pairSlots = 0;
      for (const x of orders) {
        for (const y of orders) {
          tauSum += kendallTauB(x, y).tauB;
          if (x.join() !== y.join()) mismatches++;
          for (let i = 0; i < m; i++) {
            for (let j = i + 1; j < m; j++) {
              pairSlots++;
              if (Math.sign(x[i] - x[j]) !== Math.sign(y[i] - y[j])) inversions++;
            }
          }
        }
      }
      const total = orders.length ** 2;
      const expected = rankConcordanceNull(m);
      assert.ok(close(tauSum / total, expected.expectedTauR), `M=${m} E[tau]`);
      assert.ok(close(mismatches / total, expected.totalOrderMismatch), `M=${m} mismatch`);
      assert.ok(close(inversions / pairSlots, expected.pairInversion), `M=${m} inversion`);
    }
    // The paper's M = 3 figure: 5/6 = 83.3%.
    assert.equal((100 * rankConcordanceNull(3).totalOrderMismatch).toFixed(1), "83.3");
  });
});
