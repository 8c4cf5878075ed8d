import { join } from "node:path";
import { loadSpec } from "../../core/spec-loader.js";
import { loadSpecPlugins } from "../../run/plugins.js";
import { runStudy, storeLabel } from "../../run/run-study.js";
import { createProgress } from "../progress.js";

/** Exit code when the run ended with errored trials (or stopped on an authentication failure). */
export const EXIT_TRIALS_ERRORED = 4;
/** Exit code when Ctrl-C stopped the run (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

/**
 * Ctrl-C once: stop starting trials and let those in flight finish. Twice: abort the calls
 * in flight (their trials stay unfinished and run again on resume). Finished trials are
 * committed one by one, so nothing finished is lost either way.
 */
function interruptSignals(): { stop: AbortController; abort: AbortController; dispose: () => void } {
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

export async function runCommand(
  specPath: string,
  options: { out?: string; store?: string; concurrency?: number },
): Promise<void> {
  await loadSpecPlugins(specPath);
  const outDir = options.out ?? join("runs", loadSpec(specPath).spec.study);
  const progress = createProgress();
  const signals = interruptSignals();
  try {
    const result = await runStudy({
      specPath,
      outDir,
      store: options.store,
      env: process.env,
      concurrency: options.concurrency,
      stopSignal: signals.stop.signal,
      abortSignal: signals.abort.signal,
      onNote: (message) => process.stderr.write(`${message}\n`),
      onStart: ({ runId, total, alreadyFinished }) => {
        process.stderr.write(`run ${runId}: ${total} trials, ${alreadyFinished} already finished\n`);
        progress.start(total, alreadyFinished);
      },
      onTrialDone: (event) => {
        if (event.status !== "abandoned") progress.tick(event.status === "errored");
      },
    });
    progress.stop();
    const { summary, counts } = result;
    const lines = [
      `ran ${summary.attempted} trial(s): ${summary.finished} finished, ${summary.errored} errored, ${summary.abandoned} not completed`,
      `calls: ${summary.calls}, cost: $${summary.costUsd.toFixed(4)}`,
      `study status: ${counts.finished} finished, ${counts.errored} errored, ${counts.pending} pending`,
    ];
    if (summary.stoppedBy === "budget") lines.push("stopped: the spec's budget was reached");
    if (summary.stoppedBy === "stop") lines.push("stopped by interrupt: run the same command again to resume");
    if (summary.stoppedBy === "auth") {
      lines.push(
        `stopped: authentication failed (${summary.authFailure}); fix the model's API key, then run the same command again`,
      );
    }
    if (counts.errored > 0) lines.push("errored trials are retried when you run the same command again");
    if (options.store) {
      lines.push(
        `results: trials in ${storeLabel(options.store)}; spec and manifest in ${result.outDir} ` +
          "(parallax status|export <the --store target>)",
      );
    } else {
      lines.push(`results: ${result.outDir} (parallax status ${result.outDir}; parallax export ${result.outDir})`);
    }
    process.stdout.write(`${lines.join("\n")}\n`);
    if (summary.stoppedBy === "stop") process.exitCode = EXIT_INTERRUPTED;
    else if (counts.errored > 0 || summary.stoppedBy === "auth") process.exitCode = EXIT_TRIALS_ERRORED;
  } finally {
    progress.stop();
    signals.dispose();
  }
}
