import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WIDE_CELLS, wideClusterTable } from "../helpers/wide-cluster-table.js";
import {
  type ClusteredCellCounts,
  clusterBootstrap,
  clusteredCellCounts,
  gapStatistic,
  pairwiseRiskDifferences,
  quantiles,
  RandomStream,
  riskDifferenceStatistic,
  standardDeviation,
} from "../../src/stats/index.js";

// Three clusters; cluster "b" has two rows in cell "x".
const rows = {
  cluster: ["c", "a", "b", "b", "a", "b", "c", "z"],
  cell: ["x", "x", "x", "x", "y", "y", "y", "w"],
  outcome: [1, 0, 1, 0, 1, 1, 0, 1],
};

describe("cluster x cell counts", () => {
  it("sorts clusters in code-point order and sums outcomes and rows per cell", () => {
    const data = clusteredCellCounts(rows, ["x", "y"]);
    assert.deepEqual(data.clusters, ["a", "b", "c", "z"]);
    // Layout: [cell * clusters + cluster]; the row of cell "w" is left out.
    assert.deepEqual(Array.from(data.trials), [1, 2, 1, 0, 1, 1, 1, 0]);
    assert.deepEqual(Array.from(data.successes), [0, 1, 1, 0, 1, 1, 0, 0]);
  });
});

describe("cluster bootstrap", () => {
  it("with explicit resamples, a drawn cluster brings all its rows, once per draw", () => {
    const data = clusteredCellCounts(rows, ["x", "y"]);
    const result = clusterBootstrap(data, (t) => [t.successes[0], t.trials[0], t.successes[1], t.trials[1]], {
      resampleIndices: [
        [1, 1, 0],
        [2, 2, 2],
      ],
    });
    // Resample 1 = b, b, a: cell x rows b(1,0) twice + a(0); cell y rows b(1) twice + a(1).
    assert.deepEqual(
      result.replicates.map((r) => r[0]),
      [2, 5, 3, 3],
    );
    assert.deepEqual(
      result.replicates.map((r) => r[1]),
      [3, 3, 0, 3],
    );
    assert.deepEqual(result.estimate, [2, 4, 2, 3]);
    assert.equal(result.seed, null);
  });

  it("totals balanced cells (same rows in every cluster) exactly like unbalanced ones", () => {
    const balanced = clusteredCellCounts({
      cluster: ["a", "a", "b", "b", "c", "c"],
      cell: ["x", "x", "x", "x", "x", "x"],
      outcome: [1, 1, 0, 1, 0, 0],
    });
    const r = clusterBootstrap(balanced, (t) => [t.successes[0], t.trials[0]], {
      resampleIndices: [[0, 0, 2], [1, 2, 2, 2], []],
    });
    assert.deepEqual(Array.from(r.replicates[0]), [4, 1, 0]);
    assert.deepEqual(Array.from(r.replicates[1]), [6, 8, 0]);
  });

  it("shares each resample's draws across cells: identical cells give a zero difference every time", () => {
    const stream = RandomStream.fromSeed(1);
    const cluster: string[] = [];
    const cell: string[] = [];
    const outcome: number[] = [];
    for (let g = 0; g < 50; g++) {
      const y = stream.bernoulli(0.5);
      for (const c of ["A", "B"]) {
        cluster.push(`case-${g}`);
        cell.push(c);
        outcome.push(y);
      }
    }
    const data = clusteredCellCounts({ cluster, cell, outcome }, ["A", "B"]);
    const result = clusterBootstrap(data, riskDifferenceStatistic(0, 1), { resamples: 500, seed: 2 });
    assert.ok(
      result.replicates[0].every((v) => v === 0),
      "expected result.replicates[0].every((v) => v === 0)",
    );
    // The proportions themselves do vary between resamples.
    const pA = clusterBootstrap(data, (t) => [t.successes[0] / t.trials[0]], { resamples: 500, seed: 2 });
    assert.ok(pA.standardError[0] > 0.03, "expected pA.standardError[0] > 0.03");
  });

  it("is reproducible from the seed; a longer run extends a shorter one with the same seed", () => {
    const data = plantedData(7, 80, 0.1);
    const stat = riskDifferenceStatistic(0, 1);
    const a = clusterBootstrap(data, stat, { resamples: 1500, seed: 11 });
    const b = clusterBootstrap(data, stat, { resamples: 1500, seed: 11 });
    const c = clusterBootstrap(data, stat, { resamples: 1500, seed: 12 });
    const short = clusterBootstrap(data, stat, { resamples: 1000, seed: 11 });
    assert.deepEqual(a.replicates, b.replicates);
    assert.notDeepEqual(a.replicates, c.replicates);
    assert.deepEqual(short.replicates[0], a.replicates[0].subarray(0, 1000));
  });

  it("reports type-7 percentile CIs and SD standard errors of the replicates", () => {
    const data = plantedData(8, 60, 0.1);
    const r = clusterBootstrap(data, riskDifferenceStatistic(0, 1), { resamples: 999, seed: 5, level: 0.9 });
    assert.deepEqual(r.percentileCi[0], quantiles(r.replicates[0], [0.05, 0.95]));
    assert.ok(
      Math.abs(r.standardError[0] - standardDeviation(r.replicates[0])) < 1e-15,
      "expected Math.abs(r.standardError[0] - standardDeviation(r.replicates[0])) < 1e-15",
    );
  });

  it("recovers a planted risk difference within its CI, with all pairwise and gap statistics", () => {
    const data = plantedData(9, 400, 0.12);
    const { statistic, pairs } = pairwiseRiskDifferences(2);
    const r = clusterBootstrap(data, statistic, { resamples: 2000, seed: 1 });
    assert.deepEqual(pairs, [[0, 1]]);
    assert.ok(r.percentileCi[0][0] < 0.12 && 0.12 < r.percentileCi[0][1], `${r.percentileCi[0]}`);
    const gap = clusterBootstrap(data, gapStatistic(0, 1, 1, 0), { resamples: 200, seed: 1 });
    assert.ok(
      Math.abs(gap.estimate[0] - 2 * r.estimate[0]) < 1e-15,
      "expected Math.abs(gap.estimate[0] - 2 * r.estimate[0]) < 1e-15",
    );
  });

  it("leaves resamples with an empty cell out of the CI and counts them", () => {
    // Cell B only exists in one of 3 clusters, so some resamples miss it.
    const data = clusteredCellCounts({
      cluster: ["a", "b", "c", "c"],
      cell: ["A", "A", "A", "B"],
      outcome: [1, 0, 1, 1],
    });
    const r = clusterBootstrap(data, riskDifferenceStatistic(0, 1), { resamples: 300, seed: 3 });
    assert.ok(
      r.undefinedReplicates[0] > 50 && r.undefinedReplicates[0] < 150,
      "expected r.undefinedReplicates[0] > 50 && r.undefinedReplicates[0] < 150",
    );
    assert.ok(Number.isFinite(r.percentileCi[0][0]), "expected Number.isFinite(r.percentileCi[0][0])");
  });

  it("handles 10,000 resamples of 2,617 clusters x 24 cells: every pairwise RD, finite, inside [-1, 1]", () => {
    // Its speed is measured by `npm run bench:bootstrap` (bench/bootstrap.ts), not asserted here.
    const cells = WIDE_CELLS;
    const data = wideClusterTable();
    const { statistic, pairs } = pairwiseRiskDifferences(cells);
    const r = clusterBootstrap(data, statistic, { resamples: 10_000, seed: 1 });
    assert.equal(pairs.length, (cells * (cells - 1)) / 2);
    assert.equal(r.replicates.length, pairs.length);
    for (const replicates of r.replicates) {
      assert.equal(replicates.length, 10_000);
      assert.ok(
        replicates.every((d) => Number.isFinite(d) && Math.abs(d) <= 1),
        "expected replicates.every((d) => Number.isFinite(d) && Math.abs(d) <= 1)",
      );
    }
  });
});

/** Paired two-condition data: case difficulty d ~ U(0.2, 1), p_A = d, p_B = d - rd (3 attempts each). */
function plantedData(seed: number, cases: number, rd: number): ClusteredCellCounts {
  const stream = RandomStream.fromSeed(seed);
  const cluster: string[] = [];
  const cell: string[] = [];
  const outcome: number[] = [];
  for (let g = 0; g < cases; g++) {
    const difficulty = 0.2 + 0.8 * stream.uniform();
    for (const [c, p] of [
      ["A", difficulty],
      ["B", difficulty - rd],
    ] as const) {
      for (let attempt = 0; attempt < 3; attempt++) {
        cluster.push(`case-${g}`);
        cell.push(c);
        outcome.push(stream.bernoulli(p));
      }
    }
  }
  return clusteredCellCounts({ cluster, cell, outcome }, ["A", "B"]);
}
