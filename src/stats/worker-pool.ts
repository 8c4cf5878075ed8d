// A pool of worker threads running one worker module, shared by the computations that split their
// work across threads (the parallel bootstrap, the specification curve's permutations). Each
// request is a message with an id; the worker answers it with `serveWorkerRequests`. An idle pool
// does not keep the process alive, and a worker that fails or exits rejects its pending requests
// and leaves the pool (the next request starts another), so a caller never waits on a dead worker.
import { parentPort, type Transferable, Worker } from "node:worker_threads";

interface Pending {
  resolve: (reply: unknown) => void;
  reject: (error: Error) => void;
}

interface PooledWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

type Reply = { id: number; reply: unknown } | { id: number; error: string };

export interface WorkerPool {
  /** Sends `request` to the pool's worker `index` (started on first use); resolves with its reply. */
  request<R>(index: number, request: unknown, transfer?: readonly Transferable[]): Promise<R>;
  /** Starts the workers 0..count-1 now (their modules load while the caller works). */
  start(count: number): void;
  /** Terminates the pool's workers (tests and benchmarks that want a clean exit). */
  close(): Promise<void>;
}

/**
 * The worker module `name` beside the calling module `base` (its import.meta.url): .js when
 * built, .ts when run from source (tsx).
 */
export function workerModule(name: string, base: string): URL {
  return new URL(`./${name}${base.endsWith(".ts") ? ".ts" : ".js"}`, base);
}

/**
 * Built, the worker is its .js module. From source (tsx), module hooks do not reach workers in
 * Node 20, so the worker first registers tsx's loader, then imports the .ts module.
 */
function createWorker(url: URL): Worker {
  if (!url.pathname.endsWith(".ts")) return new Worker(url);
  const tsx = import.meta.resolve("tsx/esm/api");
  const code = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { eval: true });
}

export function workerPool(url: URL): WorkerPool {
  const pool: PooledWorker[] = [];
  let nextRequest = 0;

  const fail = (entry: PooledWorker, error: Error) => {
    for (const { reject } of entry.pending.values()) reject(error);
    entry.pending.clear();
    const at = pool.indexOf(entry);
    if (at >= 0) pool.splice(at, 1);
  };

  const workerAt = (index: number): PooledWorker => {
    while (pool.length <= index) {
      const worker = createWorker(url);
      const entry: PooledWorker = { worker, pending: new Map() };
      worker.on("message", (message: Reply) => {
        const pending = entry.pending.get(message.id);
        entry.pending.delete(message.id);
        if ("error" in message) pending?.reject(new Error(`worker thread: ${message.error}`));
        else pending?.resolve(message.reply);
      });
      // An error that could not be passed between threads arrives as a plain object.
      worker.on("error", (error: unknown) =>
        fail(
          entry,
          error instanceof Error ? error : new Error("worker thread failed (its error could not be passed on)"),
        ),
      );
      // An exit without an error (process.exit in the worker, terminate) fails what it left unanswered.
      worker.on("exit", (code) => fail(entry, new Error(`worker thread exited (code ${code}) before replying`)));
      // An idle pool does not keep the process alive. After the listeners: a 'message' listener refs
      // the worker's port again, and a worker started but never asked would hold the process open.
      worker.unref();
      pool.push(entry);
    }
    return pool[index];
  };

  return {
    request<R>(index: number, request: unknown, transfer: readonly Transferable[] = []): Promise<R> {
      const entry = workerAt(index);
      const id = nextRequest++;
      return new Promise<R>((resolve, reject) => {
        entry.pending.set(id, { resolve: resolve as (reply: unknown) => void, reject });
        entry.worker.ref();
        entry.worker.postMessage({ id, request }, [...transfer]);
      }).finally(() => {
        if (entry.pending.size === 0) entry.worker.unref();
      });
    },
    start(count) {
      if (count > 0) workerAt(count - 1);
    },
    async close() {
      const workers = pool.splice(0, pool.length);
      await Promise.all(workers.map((w) => w.worker.terminate()));
    },
  };
}

/**
 * The worker side: answers each request with `handle`'s reply, or what its promise resolves to
 * (its transfer list moved, not copied). A request that throws, or whose reply cannot be posted, is answered with the error's
 * message, so the caller's promise rejects and the worker stays usable.
 */
export function serveWorkerRequests<Q>(
  handle: (
    request: Q,
  ) =>
    | { reply: unknown; transfer?: readonly Transferable[] }
    | Promise<{ reply: unknown; transfer?: readonly Transferable[] }>,
): void {
  parentPort?.on("message", async ({ id, request }: { id: number; request: Q }) => {
    try {
      const answer = await handle(request);
      parentPort?.postMessage({ id, reply: answer.reply }, [...(answer.transfer ?? [])]);
    } catch (error) {
      parentPort?.postMessage({ id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
}
