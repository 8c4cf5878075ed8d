import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AdjustmentMethod, adjustPValues, RandomStream } from "../../src/stats/index.js";

const METHODS: AdjustmentMethod[] = ["bonferroni", "holm", "hochberg", "hommel", "bh", "by"];

function randomPValues(seed: number, m: number): number[] {
  const stream = RandomStream.fromSeed(seed);
  return Array.from({ length: m }, () => (stream.uniform() < 0.3 ? stream.uniform() * 0.01 : stream.uniform()));
}

describe("multiple testing", () => {
  it("returns adjusted values in input order, independent of the input permutation", () => {
    const p = randomPValues(1, 12);
    const reversed = [...p].reverse();
    for (const method of METHODS) {
      const forward = adjustPValues(p, method).adjusted;
      const backward = adjustPValues(reversed, method).adjusted.reverse();
      assert.deepEqual(forward, backward, method);
      for (const [i, adj] of forward.entries()) assert.ok(adj >= p[i] && adj <= 1, `${method} ${i}`);
    }
  });

  it("orders the methods by strictness: Bonferroni >= Holm >= Hochberg >= Hommel, Hochberg >= BH, BY >= BH", () => {
    for (const seed of [2, 3, 4]) {
      const p = randomPValues(seed, 15);
      const adj = Object.fromEntries(METHODS.map((m) => [m, adjustPValues(p, m).adjusted]));
      for (let i = 0; i < p.length; i++) {
        const e = 1e-15;
        assert.ok(adj.bonferroni[i] >= adj.holm[i] - e);
        assert.ok(adj.holm[i] >= adj.hochberg[i] - e);
        assert.ok(adj.hochberg[i] >= adj.hommel[i] - e); // Hommel is uniformly more powerful than Hochberg
        assert.ok(adj.hochberg[i] >= adj.bh[i] - e);
        assert.ok(adj.by[i] >= adj.bh[i] - e);
      }
    }
  });

  it("finds planted signals while keeping the nulls (BH at 5%)", () => {
    const stream = RandomStream.fromSeed(8);
    const signals = Array.from({ length: 10 }, () => stream.uniform() * 1e-5);
    const nulls = Array.from({ length: 90 }, () => 0.05 + 0.95 * stream.uniform());
    const result = adjustPValues([...signals, ...nulls], "bh", 0.05);
    assert.ok(result.reject.slice(0, 10).every(Boolean));
    assert.ok(result.reject.slice(10).every((r) => !r));
  });

  it("gives tied p-values identical adjusted values", () => {
    for (const method of METHODS) {
      const adj = adjustPValues([0.01, 0.04, 0.04, 0.2], method).adjusted;
      assert.equal(adj[1], adj[2], method);
    }
  });

  it("rejects invalid p-values", () => {
    assert.throws(() => adjustPValues([0.1, 1.2], "holm"), RangeError);
  });
});
