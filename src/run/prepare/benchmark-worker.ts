// Worker entry of off-thread benchmark preparation (benchmark-thread.ts): prepares the benchmarks
// it is sent, one at a time. A benchmark's whole item list, its parse garbage and its pool
// live in this thread's heap, which ends with the thread, so the run's own heap is never sized
// after them (V8 sets the next collection's limit from the live set of the last full one).
import { parentPort, workerData } from "node:worker_threads";
import { locatedSource, parseSpecFile } from "../../core/spec-yaml.js";
import { threadFailure } from "../../core/thread-errors.js";
import { prepareBenchmark } from "./benchmark-preparation.js";
import type { PreparationSetup, PreparationReply } from "./benchmark-thread.js";

const setup = workerData as PreparationSetup;
const located = { path: setup.specPath, source: locatedSource(parseSpecFile(setup.specText, setup.specPath)) };

// One benchmark at a time: the next is sent when this one's reply arrives.
parentPort?.on("message", async (index: number) => {
  let reply: PreparationReply;
  try {
    reply = { prepared: await prepareBenchmark({ ...setup, index, located, plugins: false, setAside: true }) };
  } catch (error) {
    reply = { failure: threadFailure(error) };
  }
  // Copied, not transferred: the pool's batches are deflated, and a small Buffer may share Node's pool.
  parentPort?.postMessage(reply);
});
