import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  closeBootstrapWorkers,
  clusterBootstrap,
  clusterBootstrapParallel,
  clusteredCellCounts,
  pairwiseRiskDifferences,
  RandomStream,
  riskDifferenceStatistic,
} from "../../src/stats/index.js";
import { WIDE_CELLS, wideClusterTable } from "../helpers/wide-cluster-table.js";

const GOLDEN = process.env.PARALLAX_GOLDEN_DIR ?? join(import.meta.dirname, "../../../shared/golden");

after(() => closeBootstrapWorkers());

/** Unbalanced clusters (1-3 rows per cell), so the trials totals are resampled too. */
function unbalanced(seed: number) {
  const stream = RandomStream.fromSeed(seed);
  const cluster: string[] = [];
  const cell: string[] = [];
  const outcome: number[] = [];
  for (let g = 0; g < 300; g++) {
    const base = 0.3 + 0.5 * stream.uniform();
    for (const c of ["A", "B", "C"]) {
      const rows = 1 + stream.integer(3);
      for (let r = 0; r < rows; r++) {
        cluster.push(`g${g}`);
        cell.push(c);
        outcome.push(stream.bernoulli(c === "B" ? base - 0.1 : base));
      }
    }
  }
  return clusteredCellCounts({ cluster, cell, outcome }, ["A", "B", "C"]);
}

describe("parallel case-cluster bootstrap", () => {
  it("gives the same replicates, SEs and CIs for the same seed whatever the thread count", async () => {
    const data = unbalanced(5);
    const { statistic } = pairwiseRiskDifferences(3);
    const options = { resamples: 2500, seed: 17, blockSize: 500 };
    const single = clusterBootstrap(data, statistic, options);
    for (const threads of [1, 2, 3, 5]) {
      const parallel = await clusterBootstrapParallel(data, statistic, { ...options, threads });
      assert.deepEqual(parallel.replicates, single.replicates, `threads ${threads}`);
      assert.deepEqual(parallel.percentileCi, single.percentileCi);
      assert.deepEqual(parallel.standardError, single.standardError);
      assert.deepEqual(parallel.estimate, single.estimate);
      assert.equal(parallel.seed, 17);
    }
    const other = await clusterBootstrapParallel(data, statistic, { ...options, seed: 18, threads: 2 });
    assert.notDeepEqual(other.replicates, single.replicates);
  });

  it("handles many cells (the wide table) and a last partial block", async () => {
    const data = wideClusterTable();
    const { statistic, pairs } = pairwiseRiskDifferences(WIDE_CELLS);
    const options = { resamples: 1234, seed: 3, blockSize: 200 };
    const single = clusterBootstrap(data, statistic, options);
    const parallel = await clusterBootstrapParallel(data, statistic, { ...options, threads: 2 });
    assert.equal(parallel.replicates.length, pairs.length);
    assert.equal(parallel.replicates[0].length, 1234);
    assert.deepEqual(parallel.replicates, single.replicates);
  });

  it("reproduces the golden bootstrap fixture (explicit resamples) and agrees with it seeded", async (t) => {
    const path = join(GOLDEN, "19_cluster_bootstrap_deterministic.json");
    if (!existsSync(path)) {
      t.skip(`no ${path}`);
      return;
    }
    const fixture = JSON.parse(readFileSync(path, "utf8"));
    const { input, expected, tolerance } = fixture;
    const [header, ...lines] = readFileSync(join(GOLDEN, input.csv), "utf8").trim().split("\n");
    const columns = header.split(",");
    const col = (name: string) => columns.indexOf(name);
    const rows = lines
      .map((l) => l.split(","))
      .filter(
        (f) =>
          (input.row_filter.benchmark === null || f[col("benchmark")] === input.row_filter.benchmark) &&
          (input.row_filter.model === null || f[col("model")] === input.row_filter.model) &&
          input.row_filter.config_in.includes(f[col("config")]),
      );
    const data = clusteredCellCounts(
      {
        cluster: rows.map((f) => f[col(input.cluster)]),
        cell: rows.map((f) => f[col("config")]),
        outcome: rows.map((f) => Number(f[col("outcome")])),
      },
      [input.config_a, input.config_b],
    );
    assert.deepEqual(data.clusters, input.clusters);
    const within = (actual: number, wanted: number) =>
      Math.abs(actual - wanted) <= tolerance.atol + tolerance.rtol * Math.abs(wanted);
    const result = await clusterBootstrapParallel(data, riskDifferenceStatistic(0, 1), {
      resampleIndices: input.resample_indices,
      level: input.ci_level,
      threads: 2,
    });
    assert.ok(
      within(result.estimate[0], expected.point_estimate),
      "expected within(result.estimate[0], expected.point_estimate)",
    );
    expected.rd_replicates.forEach((v: number, b: number) => {
      assert.ok(within(result.replicates[0][b], v), `b ${b}`);
    });
    assert.ok(
      within(result.percentileCi[0][0], expected.ci_percentile[0]),
      "expected within(result.percentileCi[0][0], expected.ci_percentile[0])",
    );
    assert.ok(
      within(result.percentileCi[0][1], expected.ci_percentile[1]),
      "expected within(result.percentileCi[0][1], expected.ci_percentile[1])",
    );
    assert.ok(
      within(result.standardError[0], expected.bootstrap_se_sd_ddof1),
      "expected within(result.standardError[0], expected.bootstrap_se_sd_ddof1)",
    );
    // The seeded parallel run on the same data equals the single-threaded one.
    const seeded = { resamples: 3000, seed: 42 };
    const one = clusterBootstrap(data, riskDifferenceStatistic(0, 1), seeded);
    const two = await clusterBootstrapParallel(data, riskDifferenceStatistic(0, 1), { ...seeded, threads: 2 });
    assert.deepEqual(two.percentileCi, one.percentileCi);
  });
});
