// Worker entry of the parallel case-cluster bootstrap (parallel-bootstrap.ts): computes the
// per-cell totals of a range of resample blocks and sends them back. Each block draws from its
// own jumped stream of the seed, so the totals do not depend on which thread computes them.
import { bootstrapBlockTotals } from "./bootstrap.js";
import { serveWorkerRequests } from "./worker-pool.js";

export interface BlockRequest {
  clusters: number;
  cells: number;
  successes: Float64Array;
  trials: Float64Array;
  seed: number;
  blockSize: number;
  resamples: number;
  fromBlock: number;
  toBlock: number;
}

serveWorkerRequests((request: BlockRequest) => {
  const data = {
    clusters: Array.from({ length: request.clusters }, (_, g) => String(g)),
    cells: Array.from({ length: request.cells }, (_, c) => String(c)),
    successes: request.successes,
    trials: request.trials,
  };
  const totals = bootstrapBlockTotals(data, request);
  return { reply: totals, transfer: [totals.buffer as ArrayBuffer] };
});
