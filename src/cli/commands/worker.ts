/**
 * `parallax worker URL`: joins a run in a PostgreSQL store as one more worker (on this or any
 * machine); `parallax run --workers N` starts N - 1 of them beside itself
 * (src/run/execute/local-workers.ts). Each worker claims trials under leases, so none is executed twice.
 */
import { describeBudget } from "../../run/execute/budget.js";
import { runWorker } from "../../run/execute/run-worker.js";
import { storeArgument } from "../../run/store/url.js";
import type { WorkerExit } from "../../run/execute/local-workers.js";
import { EXIT_INTERRUPTED, EXIT_TRIALS_ERRORED, interruptSignals, stopWithParent } from "../interrupt.js";

/** The line a run or worker that ended with trials still pending prints. */
export function pendingLine(pending: number): string {
  return `${pending} trial${pending === 1 ? "" : "s"} pending: run again`;
}

export interface WorkerCommandOptions {
  run?: string;
  concurrency?: number;
  leaseSeconds?: number;
  erroredBefore?: string;
  rateShare?: number;
}

export async function workerCommand(url: string, options: WorkerCommandOptions): Promise<void> {
  const signals = interruptSignals();
  const disposeParentWatch = stopWithParent(signals);
  try {
    const result = await runWorker({
      store: url,
      runId: options.run,
      env: process.env,
      concurrency: options.concurrency,
      lease: {
        leaseMs: options.leaseSeconds === undefined ? undefined : options.leaseSeconds * 1000,
        erroredBefore: options.erroredBefore,
      },
      rateShare: options.rateShare,
      stopSignal: signals.stop.signal,
      abortSignal: signals.abort.signal,
      onNote: (message) => process.stderr.write(`${message}\n`),
    });
    const { summary, counts } = result;
    process.stdout.write(
      `worker ${result.workerId} on run ${result.runId}: ran ${summary.attempted} trial(s), ${summary.finished} finished, ` +
        `${summary.errored} errored, ${summary.abandoned} not completed; calls ${summary.calls}\n` +
        `study status: ${counts.finished} finished, ${counts.errored} errored, ${counts.pending} pending\n` +
        (summary.stoppedBy === "budget" ? "stopped: the spec's budget was reached\n" : "") +
        (summary.budget ? `${describeBudget(summary.budget)}\n` : "") +
        (result.judging ? `${judgingLine(result.judging, url)}\n` : ""),
    );
    const leftPending = summary.stoppedBy === "completed" ? counts.pending : 0;
    if (leftPending > 0) process.stdout.write(`${pendingLine(leftPending)}\n`);
    if (summary.stoppedBy === "stop") process.exitCode = EXIT_INTERRUPTED;
    else if (summary.errored > 0 || summary.stoppedBy === "auth" || leftPending > 0)
      process.exitCode = EXIT_TRIALS_ERRORED;
  } finally {
    disposeParentWatch();
    signals.dispose();
  }
}

/** What a worker says of the run's judging round: judged under the run's seal, unblinded by the run. */
function judgingLine(judging: { trials: number; finished: boolean }, url: string): string {
  const round = `judging: ${judging.trials} trial(s) judged under the run's sealed round`;
  return judging.finished
    ? `${round}; the round is unblinded`
    : `${round}; the run unblinds it once every judged trial is finished (or again: parallax run SPEC --store ${storeArgument(url)})`;
}

export function describeWorkerExit(exit: WorkerExit): string {
  if (exit.error !== undefined) return `not started (${exit.error})`;
  return exit.signal !== null ? `killed by ${exit.signal}` : `exit ${exit.code}`;
}
