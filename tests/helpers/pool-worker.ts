// A worker module for the worker-pool tests: echoes a request, throws, exits, or replies with
// what cannot be posted, on demand.
import { serveWorkerRequests } from "../../src/stats/worker-pool.js";

export type PoolTestRequest = { echo: number } | { throw: string } | { exit: number } | { uncloneable: string };

serveWorkerRequests((request: PoolTestRequest) => {
  if ("throw" in request) throw new Error(request.throw);
  if ("exit" in request) process.exit(request.exit);
  if ("uncloneable" in request) return { reply: { [request.uncloneable]: () => request.uncloneable } };
  const doubled = Float64Array.of(request.echo * 2);
  return { reply: doubled, transfer: [doubled.buffer as ArrayBuffer] };
});
