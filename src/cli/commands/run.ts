import { join } from "node:path";
import { loadSpec, readSpecFile } from "../../core/spec-loader.js";
import { loadSpecPlugins } from "../../run/prepare/plugins.js";
import { storeLabel } from "../../run/execute/run-study.js";
import { createProgress } from "../progress.js";
import { storeArgument } from "../../run/store/url.js";
import { describeWorkerExit, pendingLine } from "./worker.js";
import { describeBudget } from "../../run/execute/budget.js";
import { type RunWithWorkersResult, runWithWorkers } from "../../run/execute/run-with-workers.js";
import { describeLooks } from "../../run/sequential/describe.js";
import { EXIT_INTERRUPTED, EXIT_TRIALS_ERRORED, interruptSignals } from "../interrupt.js";

export { EXIT_INTERRUPTED, EXIT_TRIALS_ERRORED } from "../interrupt.js";

export interface RunCommandOptions {
  out?: string;
  store?: string;
  concurrency?: number;
  /** Worker processes on a PostgreSQL store (this one and N - 1 more), sharing the concurrency. */
  workers?: number;
  leaseSeconds?: number;
  /** Workers sharing each API key (default --workers): each keeps that share of the declared rate limits. */
  rateShare?: number;
}

export async function runCommand(specPath: string, options: RunCommandOptions): Promise<void> {
  // Read and parsed once: a spec with inline items can take a large share of a short run to parse.
  const file = readSpecFile(specPath);
  await loadSpecPlugins(file);
  const spec = loadSpec(file).spec;
  // With --store, the study files go under runs/RUN_ID (runStudy's default): a directory per run,
  // never another spec's of the same study name.
  const outDir = options.out ?? (options.store ? undefined : join("runs", spec.study));
  const progress = createProgress();
  const signals = interruptSignals();
  try {
    const result = await runWithWorkers({
      specPath,
      specFile: file,
      outDir,
      store: options.store,
      env: process.env,
      workers: options.workers,
      concurrency: options.concurrency,
      specConcurrency: spec.execution.concurrency,
      leaseSeconds: options.leaseSeconds,
      rateShare: options.rateShare,
      workerCommand: { executable: process.execPath, args: [...process.execArgv, process.argv[1], "worker"] },
      stopSignal: signals.stop.signal,
      abortSignal: signals.abort.signal,
      onNote: (message) => process.stderr.write(`${message}\n`),
      onPlanning: ({ planned, total }) => {
        process.stderr.write(`planning trials: ${planned} of ${total} stored\n`);
      },
      onStart: ({ runId, total, alreadyFinished }) => {
        process.stderr.write(`run ${runId}: ${total} trials, ${alreadyFinished} already finished\n`);
        progress.start(total, alreadyFinished);
      },
      onTrialDone: (event) => {
        if (event.status !== "abandoned") progress.tick(event.status === "errored");
      },
    });
    progress.stop();
    process.stdout.write(`${describeRun(result, options.store).join("\n")}\n`);
    process.exitCode = exitCodeOf(result);
  } finally {
    progress.stop();
    signals.dispose();
  }
}

/** What the run did and where its results are, as the terminal shows it. */
function describeRun(result: RunWithWorkersResult, storeUrl: string | undefined): string[] {
  const { summary, counts, workerExits } = result;
  const lines = [
    `ran ${summary.attempted} trial(s): ${summary.finished} finished, ${summary.errored} errored, ${summary.abandoned} not completed`,
    `calls: ${summary.calls}, cost: $${summary.costUsd.toFixed(4)}`,
    `study status: ${counts.finished} finished, ${counts.errored} errored, ${counts.pending} pending`,
  ];
  if (result.sequential) lines.push(...describeLooks(result.sequential.looks));
  if (summary.stoppedBy === "budget") lines.push("stopped: the spec's budget was reached");
  if (summary.budget) lines.push(describeBudget(summary.budget));
  if (summary.stoppedBy === "stop") lines.push("stopped by interrupt: run the same command again to resume");
  if (summary.stoppedBy === "auth") {
    lines.push(
      `stopped: authentication failed (${summary.authFailure}); fix the model's API key, then run the same command again`,
    );
  }
  if (summary.stoppedBy === "sandbox") {
    lines.push(
      `stopped: the tool sandbox failed (${summary.sandboxFailure}); make bubblewrap run (docs/TOOLS.md), then run the same command again`,
    );
  }
  if (workerExits.length > 0)
    lines.push(`workers: this one and ${workerExits.length} more (${workerExits.map(describeWorkerExit).join(", ")})`);
  if (counts.errored > 0) lines.push("errored trials are retried when you run the same command again");
  const pending = leftPending(result);
  if (pending > 0) lines.push(pendingLine(pending));
  if (storeUrl) {
    const store = storeArgument(storeUrl);
    lines.push(
      ...resultsLines(`trials in ${storeLabel(storeUrl)}; spec and manifest in ${result.outDir}`, [
        `parallax status ${store}`,
        `parallax export ${store}`,
      ]),
    );
  } else {
    const dir = storeArgument(result.outDir);
    lines.push(...resultsLines(result.outDir, [`parallax status ${dir}`, `parallax export ${dir}`]));
  }
  return lines;
}

/**
 * Where the results are and the commands that read them, within 120 columns where the paths allow:
 * one line, else the commands on a line of their own, else one command a line.
 */
function resultsLines(where: string, commands: readonly string[]): string[] {
  const fits = (line: string) => line.length <= 120;
  const line = `results: ${where} (${commands.join("; ")})`;
  if (fits(line)) return [line];
  const together = `  ${commands.join("; ")}`;
  return [`results: ${where}`, ...(fits(together) ? [together] : commands.map((command) => `  ${command}`))];
}

/** Interrupted, trials errored or left pending (or auth/sandbox stops), a worker that failed, or 0. */
function exitCodeOf(result: RunWithWorkersResult): number {
  const { summary, counts, workerExits } = result;
  if (summary.stoppedBy === "stop") return EXIT_INTERRUPTED;
  if (counts.errored > 0 || leftPending(result) > 0 || summary.stoppedBy === "auth" || summary.stoppedBy === "sandbox")
    return EXIT_TRIALS_ERRORED;
  return workerExits.some((exit) => exit.code !== 0) ? 1 : 0;
}

/**
 * Trials a run that ran out of work (not stopped by budget, auth, the sandbox or Ctrl-C) left
 * pending; a sequential run that ended leaves its undecided looks' trials pending on purpose.
 */
function leftPending(result: RunWithWorkersResult): number {
  const sequentialEnded = result.sequential?.looks.at(-1)?.end;
  return result.summary.stoppedBy === "completed" && !sequentialEnded ? result.counts.pending : 0;
}
