/** Ctrl-C handling and the exit codes of the commands that execute trials (`run`, `worker`). */
/** Exit code when the run ended with errored trials (or stopped on an authentication failure). */
export const EXIT_TRIALS_ERRORED = 4;
import { EXIT_INTERRUPTED } from "../core/errors.js";

export { EXIT_INTERRUPTED };

/**
 * Ctrl-C once: stop starting trials and let those in flight finish. Twice: abort the calls
 * in flight (their trials stay unfinished and run again on resume). Finished trials are
 * committed one by one, so nothing finished is lost either way.
 */
export function interruptSignals(): { stop: AbortController; abort: AbortController; dispose: () => void } {
  const stop = new AbortController();
  const abort = new AbortController();
  const onSigint = (): void => {
    if (!stop.signal.aborted) {
      process.stderr.write("\nstopping: finishing trials in flight (Ctrl-C again to abort them)\n");
      stop.abort();
    } else {
      process.stderr.write("\naborting trials in flight; they will run again on resume\n");
      abort.abort();
    }
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  return {
    stop,
    abort,
    dispose: () => {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigint);
    },
  };
}

/** How long a worker whose run died may take to give its trials back before it exits anyway. */
const ORPHAN_EXIT_MS = 5_000;

/**
 * A worker that `run --workers N` started holds an IPC channel to that run. When the run dies,
 * even by SIGKILL, the channel closes: the worker aborts its calls in flight, gives their leases
 * back and ends (at the latest after ORPHAN_EXIT_MS), instead of working and paying on without
 * it. A worker started by hand has no channel and is not affected. Returns the disposer.
 */
export function stopWithParent(signals: { stop: AbortController; abort: AbortController }): () => void {
  if (!process.channel) return () => {};
  const onDisconnect = (): void => {
    process.stderr.write("parallax worker: the run that started this worker is gone; stopping\n");
    signals.stop.abort();
    signals.abort.abort();
    setTimeout(() => process.exit(EXIT_INTERRUPTED), ORPHAN_EXIT_MS).unref();
  };
  process.once("disconnect", onDisconnect);
  // Removing the listener lets the channel stop holding the process open once the work is done.
  return () => process.off("disconnect", onDisconnect);
}
