// Worker entry of off-thread benchmark preparation (benchmark-thread.ts): prepares the benchmark
// each request names. A benchmark's whole item list, its parse garbage and its pool live in this
// thread's heap, which ends with the thread, so the run's own heap is never sized after them
// (V8 sets the next collection's limit from the live set of the last full one).
import { locatedSource, parseSpecFile } from "../../core/spec-yaml.js";
import { threadFailure } from "../../core/thread-errors.js";
import { serveWorkerRequests } from "../../stats/worker-pool.js";
import { prepareBenchmark } from "./benchmark-preparation.js";
import type { PreparationReply, PreparationRequest } from "./benchmark-thread.js";

serveWorkerRequests(async ({ setup, index }: PreparationRequest) => {
  let reply: PreparationReply;
  try {
    // The spec's YAML, where a source's problem is located (its positions are parsed only if one is).
    const located = { path: setup.specPath, source: locatedSource(parseSpecFile(setup.specText, setup.specPath)) };
    reply = {
      prepared: await prepareBenchmark({ ...setup, index, located, plugins: false, setAside: true }),
    };
  } catch (error) {
    reply = { failure: threadFailure(error) };
  }
  // Copied, not transferred: the pool's batches are deflated, and a small Buffer may share Node's pool.
  return { reply };
});
