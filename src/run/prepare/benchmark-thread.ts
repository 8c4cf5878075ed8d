/**
 * Benchmarks prepared on a worker thread (benchmark-worker.ts) for a run: a study loads every item
 * of each benchmark (tens of thousands) to draw its sample and its exemplar pool, and keeps a few
 * hundred. Loaded on the run's own thread, those items would be live at one of V8's full
 * collections, which then lets the run's heap grow to about four times them before the next; on
 * the worker they never reach the run's heap, and the worker ends with the preparation. The
 * results are the same as prepareBenchmark's on the calling thread. (A second worker taking every
 * other benchmark brought the first trial of SafetyRepro no sooner, for 25 MB more at its peak.)
 */
import type { StudySpec } from "../../contracts/spec.js";
import { rebuiltError, type ThreadFailure } from "../../core/thread-errors.js";
import type { LoadContext } from "../../datasets/types.js";
import { workerModule, workerPool } from "../../stats/worker-pool.js";
import type { PreparedBenchmark } from "./benchmark-preparation.js";

/** What the worker needs to prepare a benchmark: the study's spec, parsed and as written. */
export interface PreparationSetup {
  spec: StudySpec;
  specPath: string;
  specText: string;
  context: LoadContext;
}

export interface PreparationRequest {
  setup: PreparationSetup;
  index: number;
}

export type PreparationReply = { prepared: PreparedBenchmark } | { failure: ThreadFailure };

/**
 * Prepares the spec's benchmarks one after another on a worker thread, each as it is asked for
 * (in the spec's order); `close` ends the worker. The worker starts at once, so its modules load
 * while the caller works.
 */
export function benchmarkThread(setup: PreparationSetup): {
  prepare(index: number): Promise<PreparedBenchmark>;
  close(): Promise<void>;
} {
  const pool = workerPool(workerModule("benchmark-worker", import.meta.url));
  pool.start(1);
  return {
    async prepare(index) {
      const reply = await pool.request<PreparationReply>(0, { setup, index } satisfies PreparationRequest);
      if ("failure" in reply) throw rebuiltError(reply.failure);
      return withBuffers(reply.prepared);
    },
    close: () => pool.close(),
  };
}

/** A set-aside pool's batches arrive as plain Uint8Arrays: the store binds Buffers. */
function withBuffers(prepared: PreparedBenchmark): PreparedBenchmark {
  for (const batch of prepared.pool?.aside?.batches ?? []) {
    batch.items = Buffer.from(batch.items.buffer, batch.items.byteOffset, batch.items.byteLength);
  }
  return prepared;
}
