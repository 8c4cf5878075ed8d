// The case-cluster bootstrap spread over worker threads. Resamples come in blocks; block k draws
// from the k-th jumped stream of the seed (RandomStream.independentStreams), so a resample's
// cluster draws, its per-cell totals and therefore every replicate, SE and CI are the same for
// any number of threads, and equal to clusterBootstrap's. The calling thread computes the first
// share of the blocks itself while the workers compute the rest; workers only return per-cell
// totals, and the statistic (any function) runs on the calling thread, in resample order.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
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

export interface ParallelBootstrapOptions extends ClusterBootstrapOptions {
  /** Threads including the calling one (default: the available parallelism, at most one per block). */
  threads?: number;
}

interface PooledWorker {
  worker: Worker;
  pending: Map<number, { resolve: (totals: Float64Array) => void; reject: (error: Error) => void }>;
}

/** The worker's module beside this one: .js when built, .ts when run from source (tsx). */
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const WORKER_FILE = FROM_SOURCE ? "./bootstrap-worker.ts" : "./bootstrap-worker.js";

/**
 * Built, the worker is its .js module. From source (tsx), module hooks do not reach workers in
 * Node 20, so the worker first registers tsx's loader, then imports the .ts module.
 */
function createWorker(): Worker {
  const url = new URL(WORKER_FILE, import.meta.url);
  if (!FROM_SOURCE) return new Worker(url);
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { eval: true });
}

const pool: PooledWorker[] = [];
let nextRequest = 0;

function workerAt(index: number): PooledWorker {
  while (pool.length <= index) {
    const worker = createWorker();
    // An idle pool does not keep the process alive.
    worker.unref();
    const entry: PooledWorker = { worker, pending: new Map() };
    worker.on("message", (reply: { id: number; totals: Float64Array }) => {
      entry.pending.get(reply.id)?.resolve(reply.totals);
      entry.pending.delete(reply.id);
    });
    // A failed worker fails its pending requests and leaves the pool (the next call starts another).
    worker.on("error", (error) => {
      for (const { reject } of entry.pending.values()) reject(error);
      entry.pending.clear();
      const at = pool.indexOf(entry);
      if (at >= 0) pool.splice(at, 1);
    });
    pool.push(entry);
  }
  return pool[index];
}

function requestBlocks(entry: PooledWorker, request: Omit<BlockRequest, "id">): Promise<Float64Array> {
  const id = nextRequest++;
  return new Promise<Float64Array>((resolve, reject) => {
    entry.pending.set(id, { resolve, reject });
    entry.worker.ref();
    entry.worker.postMessage({ ...request, id });
  }).finally(() => {
    if (entry.pending.size === 0) entry.worker.unref();
  });
}

/** Terminates the pooled workers (tests and benchmarks that want a clean exit). */
export async function closeBootstrapWorkers(): Promise<void> {
  const workers = pool.splice(0, pool.length);
  await Promise.all(workers.map((w) => w.worker.terminate()));
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
    .map((from, t) => requestBlocks(workerAt(t), { ...shared, fromBlock: from, toBlock: bounds[t + 2] }));
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
