import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AdjustmentMethod, adjustPValues, RandomStream } from "../../src/stats/index.js";

const METHODS: AdjustmentMethod[] = ["bonferroni", "holm", "hochberg", "hommel", "bh", "by"];

/**
 * R's p.adjust is the reference. Produced with R 4.2.2 (Debian 12 r-base-core) by
 *   vs <- list(c(0.01, 0.02, 0.03, 0.04, 0.05), c(0.001, 0.01, 0.01, 0.03, 0.2, 0.2, 0.5, 1),
 *              c(0.041, 0.0005, 0.9, 0.012, 0.3, 0.012, 0.07, 0.0001, 1, 0.6), c(0.04), c(1, 1, 1),
 *              c(0.03, 0.04), c(0.02, 0.9, 0.015),
 *              c(0.005, 0.011, 0.02, 0.04, 0.13, 0.013, 0.011, 0.6, 0.004, 0.03, 0.021, 0.9))
 *   for (v in vs) for (m in c("bonferroni", "holm", "hochberg", "hommel", "BH", "BY"))
 *     cat(m, sprintf("%.17g", p.adjust(v, m)), "\n")
 * (the vectors include ties, p = 1, m = 1, m = 2 where Hommel is Hochberg, and unsorted input).
 */
const R_P_ADJUST: ({ p: number[] } & Record<AdjustmentMethod, number[]>)[] = [
  {
    p: [0.01, 0.02, 0.029999999999999999, 0.040000000000000001, 0.050000000000000003],
    bonferroni: [0.050000000000000003, 0.10000000000000001, 0.14999999999999999, 0.20000000000000001, 0.25],
    holm: [
      0.050000000000000003, 0.080000000000000002, 0.089999999999999997, 0.089999999999999997, 0.089999999999999997,
    ],
    hochberg: [
      0.050000000000000003, 0.050000000000000003, 0.050000000000000003, 0.050000000000000003, 0.050000000000000003,
    ],
    hommel: [0.049999999999999996, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001],
    bh: [0.050000000000000003, 0.050000000000000003, 0.050000000000000003, 0.050000000000000003, 0.050000000000000003],
    by: [0.11416666666666665, 0.11416666666666665, 0.11416666666666665, 0.11416666666666667, 0.11416666666666667],
  },
  {
    p: [0.001, 0.01, 0.01, 0.029999999999999999, 0.20000000000000001, 0.20000000000000001, 0.5, 1],
    bonferroni: [0.0080000000000000002, 0.080000000000000002, 0.080000000000000002, 0.23999999999999999, 1, 1, 1, 1],
    holm: [
      0.0080000000000000002, 0.070000000000000007, 0.070000000000000007, 0.14999999999999999, 0.80000000000000004,
      0.80000000000000004, 1, 1,
    ],
    hochberg: [
      0.0080000000000000002, 0.059999999999999998, 0.059999999999999998, 0.14999999999999999, 0.60000000000000009,
      0.60000000000000009, 1, 1,
    ],
    hommel: [
      0.0080000000000000002, 0.059999999999999998, 0.059999999999999998, 0.14999999999999999, 0.60000000000000009,
      0.60000000000000009, 1, 1,
    ],
    bh: [
      0.0080000000000000002, 0.026666666666666665, 0.026666666666666665, 0.059999999999999998, 0.26666666666666666,
      0.26666666666666666, 0.5714285714285714, 1,
    ],
    by: [
      0.021742857142857144, 0.072476190476190472, 0.072476190476190472, 0.16307142857142856, 0.72476190476190483,
      0.72476190476190483, 1, 1,
    ],
  },
  {
    p: [
      0.041000000000000002, 0.00050000000000000001, 0.90000000000000002, 0.012, 0.29999999999999999, 0.012,
      0.070000000000000007, 0.0001, 1, 0.59999999999999998,
    ],
    bonferroni: [0.41000000000000003, 0.0050000000000000001, 1, 0.12, 1, 0.12, 0.70000000000000007, 0.001, 1, 1],
    holm: [
      0.246, 0.0045000000000000005, 1, 0.096000000000000002, 1, 0.096000000000000002, 0.35000000000000003, 0.001, 1, 1,
    ],
    hochberg: [
      0.246, 0.0045000000000000005, 1, 0.084000000000000005, 1, 0.084000000000000005, 0.35000000000000003, 0.001, 1, 1,
    ],
    hommel: [
      0.21000000000000002, 0.0045000000000000005, 1, 0.084000000000000005, 1, 0.084000000000000005, 0.35000000000000003,
      0.001, 1, 1,
    ],
    bh: [
      0.082000000000000003, 0.0025000000000000001, 1, 0.029999999999999999, 0.42857142857142855, 0.029999999999999999,
      0.11666666666666668, 0.001, 1, 0.75,
    ],
    by: [
      0.24017539682539682, 0.0073224206349206348, 1, 0.087869047619047611, 1, 0.087869047619047611, 0.341712962962963,
      0.0029289682539682541, 1, 1,
    ],
  },
  {
    p: [0.040000000000000001],
    bonferroni: [0.040000000000000001],
    holm: [0.040000000000000001],
    hochberg: [0.040000000000000001],
    hommel: [0.040000000000000001],
    bh: [0.040000000000000001],
    by: [0.040000000000000001],
  },
  {
    p: [1, 1, 1],
    bonferroni: [1, 1, 1],
    holm: [1, 1, 1],
    hochberg: [1, 1, 1],
    hommel: [1, 1, 1],
    bh: [1, 1, 1],
    by: [1, 1, 1],
  },
  {
    p: [0.029999999999999999, 0.040000000000000001],
    bonferroni: [0.059999999999999998, 0.080000000000000002],
    holm: [0.059999999999999998, 0.059999999999999998],
    hochberg: [0.040000000000000001, 0.040000000000000001],
    hommel: [0.040000000000000001, 0.040000000000000001],
    bh: [0.040000000000000001, 0.040000000000000001],
    by: [0.059999999999999998, 0.059999999999999998],
  },
  {
    p: [0.02, 0.90000000000000002, 0.014999999999999999],
    bonferroni: [0.059999999999999998, 1, 0.044999999999999998],
    holm: [0.044999999999999998, 0.90000000000000002, 0.044999999999999998],
    hochberg: [0.040000000000000001, 0.90000000000000002, 0.040000000000000001],
    hommel: [0.040000000000000001, 0.90000000000000002, 0.029999999999999999],
    bh: [0.029999999999999999, 0.90000000000000002, 0.029999999999999999],
    by: [0.055, 1, 0.055],
  },
  {
    p: [
      0.0050000000000000001, 0.010999999999999999, 0.02, 0.040000000000000001, 0.13, 0.012999999999999999,
      0.010999999999999999, 0.59999999999999998, 0.0040000000000000001, 0.029999999999999999, 0.021000000000000001,
      0.90000000000000002,
    ],
    bonferroni: [
      0.059999999999999998, 0.13200000000000001, 0.23999999999999999, 0.47999999999999998, 1, 0.156,
      0.13200000000000001, 1, 0.048000000000000001, 0.35999999999999999, 0.252, 1,
    ],
    holm: [
      0.055, 0.10999999999999999, 0.14000000000000001, 0.16, 0.39000000000000001, 0.10999999999999999,
      0.10999999999999999, 1, 0.048000000000000001, 0.14999999999999999, 0.14000000000000001, 1,
    ],
    hochberg: [
      0.055, 0.098999999999999991, 0.126, 0.16, 0.39000000000000001, 0.104, 0.098999999999999991, 0.90000000000000002,
      0.048000000000000001, 0.14999999999999999, 0.126, 0.90000000000000002,
    ],
    hommel: [
      0.044999999999999998, 0.069999999999999993, 0.10000000000000001, 0.16, 0.39000000000000001, 0.078,
      0.069999999999999993, 0.90000000000000002, 0.040000000000000001, 0.12, 0.10000000000000001, 0.90000000000000002,
    ],
    bh: [
      0.029999999999999999, 0.031199999999999999, 0.035999999999999997, 0.05333333333333333, 0.156,
      0.031199999999999999, 0.031199999999999999, 0.65454545454545443, 0.029999999999999999, 0.044999999999999998,
      0.035999999999999997, 0.90000000000000002,
    ],
    by: [
      0.093096320346320344, 0.096820173160173162, 0.11171558441558442, 0.16550456950456952, 0.48410086580086581,
      0.096820173160173162, 0.096820173160173162, 1, 0.093096320346320344, 0.1396444805194805, 0.11171558441558442, 1,
    ],
  },
];

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
        assert.ok(adj.bonferroni[i] >= adj.holm[i] - e, "expected adj.bonferroni[i] >= adj.holm[i] - e");
        assert.ok(adj.holm[i] >= adj.hochberg[i] - e, "expected adj.holm[i] >= adj.hochberg[i] - e");
        assert.ok(adj.hochberg[i] >= adj.hommel[i] - e, "expected adj.hochberg[i] >= adj.hommel[i] - e"); // Hommel is uniformly more powerful than Hochberg
        assert.ok(adj.hochberg[i] >= adj.bh[i] - e, "expected adj.hochberg[i] >= adj.bh[i] - e");
        assert.ok(adj.by[i] >= adj.bh[i] - e, "expected adj.by[i] >= adj.bh[i] - e");
      }
    }
  });

  it("finds planted signals while keeping the nulls (BH at 5%)", () => {
    const stream = RandomStream.fromSeed(8);
    const signals = Array.from({ length: 10 }, () => stream.uniform() * 1e-5);
    const nulls = Array.from({ length: 90 }, () => 0.05 + 0.95 * stream.uniform());
    const result = adjustPValues([...signals, ...nulls], "bh", 0.05);
    assert.ok(result.reject.slice(0, 10).every(Boolean), "expected result.reject.slice(0, 10).every(Boolean)");
    assert.ok(
      result.reject.slice(10).every((r) => !r),
      "expected result.reject.slice(10).every((r) => !r)",
    );
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

describe("multiple testing: exact values of R's p.adjust", () => {
  for (const [v, expected] of R_P_ADJUST.entries()) {
    it(`vector ${v + 1} (m = ${expected.p.length})`, () => {
      for (const method of METHODS) {
        const actual = adjustPValues(expected.p, method).adjusted;
        assert.equal(actual.length, expected[method].length, method);
        for (const [i, value] of expected[method].entries()) {
          assert.ok(
            Math.abs(actual[i] - value) <= 1e-13 * value,
            `${method}[${i}] of vector ${v + 1}: ${actual[i]} vs R ${value}`,
          );
        }
      }
    });
  }
});
