import { join } from "node:path";
import { loadSpec, readSpecFile } from "../../core/spec-loader.js";
import { loadSpecPlugins } from "../../run/plugins.js";
import { runStudy, storeLabel } from "../../run/run-study.js";
import { createProgress } from "../progress.js";
import { InputError } from "../../core/errors.js";
import { openStore } from "../../run/store/open.js";
import { isPostgresUrl, storeArgument } from "../../run/store/url.js";
import { describeWorkerExit, pendingLine, startLocalWorkers, type WorkerExit } from "./worker.js";
import { budgetReport, describeBudget } from "../../run/execute/budget.js";
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
  const workers = options.workers ?? 1;
  if (workers > 1 && !(options.store && isPostgresUrl(options.store))) {
    throw new InputError(
      "--workers needs a PostgreSQL store (--store postgres://...): workers share the run through it",
    );
  }
  // The concurrency is the run's total: split across the workers.
  const perWorker = Math.max(1, Math.ceil((options.concurrency ?? spec.execution.concurrency) / workers));
  const passStart = new Date().toISOString();
  let others: ReturnType<typeof startLocalWorkers> | undefined;
  const progress = createProgress();
  const signals = interruptSignals();
  signals.stop.signal.addEventListener("abort", () => others?.stop());
  try {
    const result = await runStudy({
      specPath,
      specFile: file,
      outDir,
      store: options.store,
      env: process.env,
      concurrency: workers > 1 ? perWorker : options.concurrency,
      rateShare: options.rateShare ?? workers,
      lease: {
        leaseMs: options.leaseSeconds === undefined ? undefined : options.leaseSeconds * 1000,
        erroredBefore: passStart,
      },
      onRecorded: (runId) => {
        if (workers > 1 && options.store) {
          others = startLocalWorkers(options.store, runId, workers - 1, {
            concurrency: perWorker,
            leaseSeconds: options.leaseSeconds,
            erroredBefore: passStart,
            rateShare: options.rateShare ?? workers,
          });
        }
      },
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
    const workerExits: WorkerExit[] = others ? await others.done : [];
    const { summary } = result;
    // The other workers may have finished trials after this one stopped claiming: count again.
    const final = others ? await finalState(options.store!, result.runId) : undefined;
    const counts = final?.counts ?? result.counts;
    // The budget as every worker left it (this one's report was read before the others stopped).
    if (summary.budget && final?.budget) {
      summary.budget = budgetReport(summary.budget.limits, final.budget, summary.budget.refused);
    }
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
      lines.push(
        `workers: this one and ${workerExits.length} more (${workerExits.map(describeWorkerExit).join(", ")})`,
      );
    if (counts.errored > 0) lines.push("errored trials are retried when you run the same command again");
    // A run that ran out of work (not stopped by budget, auth, the sandbox or Ctrl-C) with trials left must say so.
    // A sequential run that ended leaves its undecided looks' trials pending on purpose.
    const sequentialEnded = result.sequential?.looks.at(-1)?.end;
    const leftPending = summary.stoppedBy === "completed" && !sequentialEnded ? counts.pending : 0;
    if (leftPending > 0) lines.push(pendingLine(leftPending));
    if (options.store) {
      const store = storeArgument(options.store);
      lines.push(
        `results: trials in ${storeLabel(options.store)}; spec and manifest in ${result.outDir} ` +
          `(parallax status ${store}; parallax export ${store})`,
      );
    } else {
      const dir = storeArgument(result.outDir);
      lines.push(`results: ${result.outDir} (parallax status ${dir}; parallax export ${dir})`);
    }
    process.stdout.write(`${lines.join("\n")}\n`);
    if (summary.stoppedBy === "stop") process.exitCode = EXIT_INTERRUPTED;
    else if (counts.errored > 0 || leftPending > 0 || summary.stoppedBy === "auth" || summary.stoppedBy === "sandbox")
      process.exitCode = EXIT_TRIALS_ERRORED;
    else if (workerExits.some((exit) => exit.code !== 0)) process.exitCode = 1;
  } finally {
    progress.stop();
    signals.dispose();
  }
}

async function finalState(url: string, runId: string) {
  const store = await openStore(url);
  try {
    return { counts: await store.countByStatus(runId), budget: await store.budgetState(runId) };
  } finally {
    await store.close();
  }
}
