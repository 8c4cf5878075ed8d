// The case-cluster bootstrap spread over worker threads. Resamples come in blocks; block k draws
// from the k-th jumped stream of the seed (RandomStream.independentStreams), so a resample's
// cluster draws, its per-cell totals and therefore every replicate, SE and CI are the same for
// any number of threads, and equal to clusterBootstrap's. The calling thread computes the first
// share of the blocks itself while the workers compute the rest; workers only return per-cell
// totals, and the statistic (any function) runs on the calling thread, in resample order.
import { availableParallelism } from "node:os";
import {
  bootstrapBlockTotals,
  type CellStatistic,
  type ClusterBootstrapOptions,
  type ClusterBootstrapResult,
  type ClusteredCellCounts,
  clusterBootstrap,
  recordTotals,
  summariseReplicates,
  originalTotals,
} from "./bootstrap.js";
import type { BlockRequest } from "./bootstrap-worker.js";
import { workerModule, workerPool } from "./worker-pool.js";

export interface ParallelBootstrapOptions extends ClusterBootstrapOptions {
  /** Threads including the calling one (default: the available parallelism, at most one per block). */
  threads?: number;
}

const pool = workerPool(workerModule("bootstrap-worker", import.meta.url));

/** Terminates the pooled workers (tests and benchmarks that want a clean exit). */
export async function closeBootstrapWorkers(): Promise<void> {
  await pool.close();
}

export async function clusterBootstrapParallel(
  data: ClusteredCellCounts,
  statistic: CellStatistic,
  options: ParallelBootstrapOptions = {},
): Promise<ClusterBootstrapResult> {
  const resamples = options.resamples ?? 10_000;
  const blockSize = options.blockSize ?? 1000;
  const blocks = Math.ceil(resamples / blockSize);
  const threads = Math.max(1, Math.min(options.threads ?? availableParallelism(), blocks));
  if (threads === 1 || options.resampleIndices) return clusterBootstrap(data, statistic, options);
  if (data.clusters.length === 0) throw new RangeError("no clusters to resample");
  const seed = options.seed ?? 1;
  const level = options.level ?? 0.95;
  const cellCount = data.cells.length;
  // Contiguous block ranges, the first to the calling thread.
  const bounds = Array.from({ length: threads + 1 }, (_, t) => Math.round((t * blocks) / threads));
  const shared = {
    clusters: data.clusters.length,
    cells: cellCount,
    successes: Float64Array.from(data.successes),
    trials: Float64Array.from(data.trials),
    seed,
    blockSize,
    resamples,
  };
  const remote = bounds
    .slice(1, -1)
    .map((from, t) =>
      pool.request<Float64Array>(t, { ...shared, fromBlock: from, toBlock: bounds[t + 2] } satisfies BlockRequest),
    );
  const estimate = Array.from(statistic(originalTotals(data)));
  const replicates = estimate.map(() => new Float64Array(resamples));
  const own = bootstrapBlockTotals(data, { seed, blockSize, resamples, fromBlock: bounds[0], toBlock: bounds[1] });
  recordTotals(own, { cellCount, first: 0, count: own.length / (2 * cellCount) }, statistic, replicates);
  const parts = await Promise.all(remote);
  parts.forEach((totals, t) => {
    const first = Math.min(bounds[t + 1] * blockSize, resamples);
    recordTotals(totals, { cellCount, first, count: totals.length / (2 * cellCount) }, statistic, replicates);
  });
  return summariseReplicates(estimate, replicates, level, seed);
}
