// Case-cluster bootstrap benchmark (npm run bench:bootstrap): 10,000 resamples of 2,617 clusters x
// 24 cells (62,808 observations), every one of the 276 pairwise risk differences per resample.
// tests/stats/bootstrap.test.ts checks its correctness; its speed is measured here, never asserted
// in a test. Prints the time; `--budget SECONDS` exits 1 when a run is slower.
import { clusterBootstrap, pairwiseRiskDifferences } from "../src/stats/index.js";
import { WIDE_CELLS, WIDE_CLUSTERS, wideClusterTable } from "../tests/helpers/wide-cluster-table.js";

const budgetIndex = process.argv.indexOf("--budget");
const budget = budgetIndex >= 0 ? Number(process.argv[budgetIndex + 1]) : Number.POSITIVE_INFINITY;
const resamples = 10_000;
const data = wideClusterTable();
const { statistic, pairs } = pairwiseRiskDifferences(WIDE_CELLS);
const runs: number[] = [];
for (let run = 0; run < 3; run++) {
  const started = performance.now();
  clusterBootstrap(data, statistic, { resamples, seed: run + 1 });
  runs.push((performance.now() - started) / 1000);
}
const best = Math.min(...runs);
console.log(
  `cluster bootstrap: ${resamples.toLocaleString("en-US")} x ${WIDE_CLUSTERS} clusters x ${WIDE_CELLS} cells, ` +
    `${pairs.length} RDs: best of 3 ${best.toFixed(2)} s (runs ${runs.map((s) => s.toFixed(2)).join(", ")})`,
);
if (best > budget) {
  console.error(`slower than the budget of ${budget} s`);
  process.exit(1);
}
