/**
 * Executes a run's unfinished trials with bounded concurrency. Trials come from a TrialSource
 * (claim, then acknowledge); each runs its scaffold against the model's provider, every sub-call
 * is recorded, the answer is scored, and the trial's calls and outcome are committed in one store
 * transaction: a crash or kill loses only trials in flight (they stay pending and run again on
 * resume, their answers read from the response cache) and never duplicates a finished one.
 * Errored trials are retried on the next run; finished ones never are, however wrong their answer.
 */
import { setMaxListeners } from "node:events";
import type { TrialRow } from "../store/types.js";
import { CommitBatcher } from "./commit-batcher.js";
import { RunBudget } from "./budget.js";
import { type CallsDone, runTrial } from "./run-trial.js";
import { StoreTrialSource, type TrialSource } from "./trial-source.js";
import type { ExecuteOptions, ExecuteSummary, TrialContext } from "./types.js";

export async function executeTrials(options: ExecuteOptions): Promise<ExecuteSummary> {
  const summary: ExecuteSummary = {
    attempted: 0,
    finished: 0,
    errored: 0,
    abandoned: 0,
    calls: 0,
    costUsd: 0,
    stoppedBy: "completed",
  };
  const source: TrialSource = options.source ?? new StoreTrialSource(options.store, options.runId);
  // Shared by every worker of the run: this process's reservations are held under its lease owner id.
  const budget = await RunBudget.open(options.budget?.ledger ?? options.store, options.runId, options.budget, {
    holder: source.leaseOwner,
    ttlMs: source.leaseMs,
    shared: source.leaseOwner !== undefined,
  });
  const batcher = new CommitBatcher(options.store);
  // An authentication failure (401/403) or a failed tool sandbox stops the run at once: no trial
  // is claimed after it, and the calls in flight are aborted (their trials stay pending), since
  // every other call with the same key, or every other tool call, would fail the same way.
  const hardStop = new AbortController();
  let stoppedBy: "auth" | "sandbox" | undefined;
  const abortSignal = options.abortSignal ? AbortSignal.any([options.abortSignal, hardStop.signal]) : hardStop.signal;
  // Every call in flight listens on this one signal (its timeout and its rate-limit queue), so
  // more than Node's default of ten listeners is the normal case here, not a leak to warn about.
  setMaxListeners(0, abortSignal);
  const leaseOwner = source.leaseOwner;
  const context: TrialContext = {
    ...options,
    abortSignal,
    budget,
    commit: (entry) => batcher.complete(leaseOwner === undefined ? entry : { ...entry, leaseOwner }),
  };
  // A trial holds one of the `concurrency` slots while it calls the model and is scored; its
  // commit (grouped with the trials finishing beside it) runs after the slot is freed, so the next
  // trial's request does not wait for the store. At most as many trials again wait to commit.
  let calling = 0;
  const inFlight = new Set<Promise<void>>();
  // Resolved whenever a slot is freed or a trial settles, so the loop below can claim again.
  let wake: (() => void) | undefined;
  const slotFreed = () => new Promise<void>((resolve) => (wake = resolve));
  // The first failure (a store error, not a trial's) stops claiming; it is rethrown once the
  // trials in flight have settled, so none of them is left running unobserved.
  let failure: { error: unknown } | undefined;

  const stopSignal = AbortSignal.any(
    [options.stopSignal, options.abortSignal, hardStop.signal].filter((s): s is AbortSignal => s !== undefined),
  );
  const stopReason = (): ExecuteSummary["stoppedBy"] | undefined => {
    if (stoppedBy) return stoppedBy;
    if (options.stopSignal?.aborted || options.abortSignal?.aborted) return "stop";
    return budget.exhausted() ? "budget" : undefined;
  };
  // Checked as soon as a trial's calls end, before its slot is claimed again.
  const stopOnHardFailure = (done: CallsDone) => {
    if (done.status !== "errored") return;
    const bucket = done.failureBucket;
    if ((bucket !== "auth" && bucket !== "sandbox") || hardStop.signal.aborted) return;
    stoppedBy = bucket;
    if (bucket === "auth") summary.authFailure = done.errorMessage ?? "";
    else summary.sandboxFailure = done.errorMessage ?? "";
    hardStop.abort();
  };
  const execute = async (trial: TrialRow): Promise<void> => {
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      calling--;
      wake?.();
    };
    try {
      const event = await runTrial(trial, context, (done) => {
        stopOnHardFailure(done);
        freeSlot();
      });
      summary[event.status]++;
      summary.calls += event.calls;
      summary.costUsd += event.costUsd;
      await source.acknowledge(trial.id, event.status);
      options.onTrialDone?.(event);
    } finally {
      freeSlot();
    }
  };

  // A trial is claimed only when a slot is free, after the stop and budget checks, so no
  // trial starts once the budget is spent or a stop was asked for.
  while (!failure) {
    const reason = stopReason();
    if (reason) {
      summary.stoppedBy = reason;
      break;
    }
    const free = Math.min(options.concurrency - calling, 2 * options.concurrency - inFlight.size);
    if (free <= 0) {
      await slotFreed();
      continue;
    }
    const claimed = await source.claim(free);
    if (claimed.length === 0) {
      if (source.waitForWork === undefined) break;
      // A shared source: this worker's own trials may error or be abandoned; others' may expire.
      if (inFlight.size > 0) {
        await slotFreed();
        continue;
      }
      if (await source.waitForWork(stopSignal)) continue;
      break;
    }
    for (const trial of claimed) {
      summary.attempted++;
      calling++;
      const running: Promise<void> = execute(trial)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => {
          inFlight.delete(running);
          wake?.();
        });
      inFlight.add(running);
    }
  }
  await Promise.all(inFlight);
  budget.close();
  await source.close?.();
  const budgetReport = await budget.report();
  if (budgetReport) summary.budget = budgetReport;
  if (failure) throw failure.error;
  if (stoppedBy) summary.stoppedBy = stoppedBy;
  return summary;
}
