import type { ExecutionSpec } from "../../../contracts/spec.js";

/** Batch mode's settings (spec `execution.batch`), with their defaults, and the retry limit. */
export interface BatchSettings {
  /** Requests per batch; also the trials in flight, so a batch can fill. */
  maxRequests: number;
  /** A batch is submitted once no call has joined it for this long (or it is full). */
  flushAfterMs: number;
  pollInitialMs: number;
  pollMaxMs: number;
  /** How often a failed (retryable) request is resubmitted: the spec's max_retries. */
  maxRetries: number;
}

export const BATCH_DEFAULTS = {
  max_requests: 1000,
  flush_after_ms: 500,
  poll_initial_ms: 15_000,
  poll_max_ms: 300_000,
};

export function isBatchMode(execution: Pick<ExecutionSpec, "mode">): boolean {
  return execution.mode === "batch";
}

export function batchSettings(execution: ExecutionSpec): BatchSettings {
  const b = { ...BATCH_DEFAULTS, ...execution.batch };
  return {
    maxRequests: b.max_requests,
    flushAfterMs: b.flush_after_ms,
    pollInitialMs: b.poll_initial_ms,
    pollMaxMs: Math.max(b.poll_max_ms, b.poll_initial_ms),
    maxRetries: execution.max_retries,
  };
}
