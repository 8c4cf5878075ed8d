/**
 * Benchmarks prepared on worker threads (benchmark-worker.ts) for a run: a study loads every item
 * of each benchmark (tens of thousands) to draw its sample and its exemplar pool, and keeps a few
 * hundred. Loaded on the run's own thread, those items would be live at one of V8's full
 * collections, which then lets the run's heap grow to about four times them before the next; on
 * a worker they never reach the run's heap. Two workers take the benchmarks in turn (each one
 * benchmark at a time), so the first trial waits for about half the loading on two cores. The
 * results are the same as prepareBenchmark's on the calling thread.
 */
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import type { StudySpec } from "../../contracts/spec.js";
import { startModuleWorker } from "../../core/module-worker.js";
import { rebuiltError, type ThreadFailure } from "../../core/thread-errors.js";
import type { LoadContext } from "../../datasets/types.js";
import type { PreparedBenchmark } from "./benchmark-preparation.js";

/** What a worker is started with: the study's spec, parsed and as written. */
export interface PreparationSetup {
  spec: StudySpec;
  specPath: string;
  specText: string;
  context: LoadContext;
}

export type PreparationReply = { prepared: PreparedBenchmark } | { failure: ThreadFailure };

/** At most this many workers: each holds one benchmark's whole item list while it prepares it. */
const MAX_THREADS = 2;

/**
 * Every benchmark of the spec prepared on worker threads, in the spec's order. The workers end
 * when the last benchmark is prepared or one fails (the failure rejects its benchmark and the rest).
 */
export function prepareOnThreads(setup: PreparationSetup): Promise<PreparedBenchmark>[] {
  const count = setup.spec.benchmarks.length;
  const results = Array.from({ length: count }, () => settable<PreparedBenchmark>());
  let next = 0;
  let failed: Error | undefined;
  const threads = Math.max(1, Math.min(MAX_THREADS, availableParallelism(), count));
  const workers = Array.from({ length: threads }, () =>
    startModuleWorker(import.meta.url, "benchmark-worker", { workerData: setup }),
  );
  const failAll = (error: Error) => {
    failed ??= error;
    for (const result of results) result.reject(failed);
    for (const worker of workers) void worker.terminate();
  };
  const finished = new Set<Worker>();
  const serve = (worker: Worker) => {
    if (failed) return;
    if (next >= count) {
      finished.add(worker);
      void worker.terminate();
      return;
    }
    const index = next++;
    worker.once("message", (reply: PreparationReply) => {
      if ("failure" in reply) return failAll(rebuiltError(reply.failure));
      results[index].resolve(withBuffers(reply.prepared));
      serve(worker);
    });
    worker.postMessage(index);
  };
  for (const worker of workers) {
    worker.on("error", failAll);
    worker.on("exit", (code) => {
      if (!finished.has(worker))
        failAll(new Error(`a benchmark preparation thread exited (code ${code}) before its work was done`));
    });
    serve(worker);
  }
  return results.map((result) => result.promise);
}

interface Settable<T> {
  promise: Promise<T>;
  settled: boolean;
  resolve(value: T): void;
  reject(error: Error): void;
}

function settable<T>(): Settable<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A benchmark after a failed one is rejected too; only the first failure is awaited.
  promise.catch(() => {});
  const entry: Settable<T> = {
    promise,
    settled: false,
    resolve(value) {
      if (entry.settled) return;
      entry.settled = true;
      resolve(value);
    },
    reject(error) {
      if (entry.settled) return;
      entry.settled = true;
      reject(error);
    },
  };
  return entry;
}

/** A set-aside pool's batches arrive as plain Uint8Arrays: the store binds Buffers. */
function withBuffers(prepared: PreparedBenchmark): PreparedBenchmark {
  for (const batch of prepared.pool?.aside?.batches ?? []) {
    batch.items = Buffer.from(batch.items.buffer, batch.items.byteOffset, batch.items.byteLength);
  }
  return prepared;
}
