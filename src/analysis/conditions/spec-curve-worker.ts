// Worker entry of the specification curve's permutation test (spec-curve.ts): fits the
// permutations it claims from the shared counter, each from its own seed, and writes each fit at
// its place in shared memory, so the null curves do not depend on which thread fits them.
import { serveWorkerRequests } from "../../stats/worker-pool.js";
import { type NullCurvesRequest, nullCurvesReply } from "./spec-curve.js";

serveWorkerRequests((request: NullCurvesRequest) => ({ reply: nullCurvesReply(request) }));
