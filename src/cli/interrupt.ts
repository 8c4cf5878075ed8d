/** Ctrl-C handling and the exit codes of the commands that execute trials (`run`, `worker`). */
/** Exit code when the run ended with errored trials (or stopped on an authentication failure). */
export const EXIT_TRIALS_ERRORED = 4;
export { EXIT_INTERRUPTED } from "../core/errors.js";

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
