import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kendallExactP, kendallTauB, RandomStream, spearman } from "../../src/stats/index.js";

function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  return permutations(n - 1).flatMap((p) =>
    Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]),
  );
}

function inversions(p: number[]): number {
  let count = 0;
  for (let i = 0; i < p.length; i++) for (let j = i + 1; j < p.length; j++) if (p[i] > p[j]) count++;
  return count;
}

describe("rank correlations", () => {
  it("exact Kendall p equals brute-force enumeration of all permutations", () => {
    for (const n of [5, 7]) {
      const counts = permutations(n).map(inversions);
      const n0 = (n * (n - 1)) / 2;
      for (let d = 0; d <= n0; d++) {
        const c = Math.min(d, n0 - d);
        const tail = counts.filter((k) => k <= c).length / counts.length;
        const expected = Math.min(1, 2 * tail);
        assert.ok(Math.abs(kendallExactP(n, d) - expected) < 1e-14, `n=${n} d=${d}`);
      }
    }
  });

  it("detects a planted monotone relation and not an absent one", () => {
    const stream = RandomStream.fromSeed(12);
    const x = Array.from({ length: 80 }, () => stream.normal());
    const related = x.map((v) => Math.exp(v) + 0.5 * stream.normal());
    const unrelated = x.map(() => stream.normal());
    assert.ok(
      spearman(x, related).p < 1e-6 && kendallTauB(x, related).pAuto < 1e-6,
      "expected spearman(x, related).p < 1e-6 && kendallTauB(x, related).pAuto < 1e-6",
    );
    assert.ok(
      spearman(x, unrelated).p > 1e-3 && kendallTauB(x, unrelated).pAuto > 1e-3,
      "expected spearman(x, unrelated).p > 1e-3 && kendallTauB(x, unrelated).pAuto > 1e-3",
    );
  });

  it("is invariant to monotone transforms and gives |rho| = |tau| = 1 for a perfect ordering", () => {
    const x = [3, 1, 4, 1.5, 9, 2.6];
    const y = x.map((v) => -(v ** 3));
    const s = spearman(x, y);
    assert.equal(s.rho, -1);
    assert.equal(s.p, 0);
    assert.ok(Math.abs(kendallTauB(x, y).tauB + 1) < 1e-15, "expected Math.abs(kendallTauB(x, y).tauB + 1) < 1e-15");
  });

  it("uses the asymptotic p with ties and the exact one without (n <= 33)", () => {
    assert.equal(kendallTauB([1, 2, 2, 3], [1, 3, 2, 4]).pAutoMethod, "asymptotic");
    assert.equal(kendallTauB([1, 2, 3, 4], [1, 3, 2, 4]).pAutoMethod, "exact");
    const big = Array.from({ length: 40 }, (_, i) => i);
    assert.equal(kendallTauB(big, big).pAutoMethod, "asymptotic");
  });
});
