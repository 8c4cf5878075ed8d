/**
 * `parallax run` with its workers: this process runs the study and, on a PostgreSQL store with
 * `workers` above 1, starts the other workers once the run is recorded, splits the run's
 * concurrency across all of them, waits for them, and reads the study's final counts and budget
 * (the others may finish trials after this one stops claiming).
 */
import { InputError } from "../../core/errors.js";
import { openStore } from "../store/open.js";
import { isPostgresUrl } from "../store/url.js";
import { budgetReport } from "./budget.js";
import { type LocalWorkers, type LocalWorkersOptions, startLocalWorkers, type WorkerExit } from "./local-workers.js";
import { type RunStudyOptions, type RunStudyResult, runStudy } from "./run-study.js";

export interface RunWithWorkersOptions extends Omit<RunStudyOptions, "onRecorded" | "rateShare" | "lease"> {
  /** Worker processes (this one and N - 1 more); above 1 needs a PostgreSQL store. Default 1. */
  workers?: number;
  /** Trials in flight over the whole run (split across the workers); default the spec's. */
  concurrency?: number;
  leaseSeconds?: number;
  /** Workers sharing each API key (default: the number of workers). */
  rateShare?: number;
  /** The command that joins a run as a worker (the CLI's `worker` command). */
  workerCommand: LocalWorkersOptions["command"];
  /** The spec's declared concurrency, the default of `concurrency`. */
  specConcurrency: number;
}

export interface RunWithWorkersResult extends RunStudyResult {
  /** How each of the other workers ended (none without --workers). */
  workerExits: WorkerExit[];
}

export async function runWithWorkers(options: RunWithWorkersOptions): Promise<RunWithWorkersResult> {
  const workers = options.workers ?? 1;
  if (workers > 1 && !(options.store && isPostgresUrl(options.store))) {
    throw new InputError(
      "--workers needs a PostgreSQL store (--store postgres://...): workers share the run through it",
    );
  }
  const perWorker = Math.max(1, Math.ceil((options.concurrency ?? options.specConcurrency) / workers));
  const rateShare = options.rateShare ?? workers;
  const passStart = new Date().toISOString();
  let others: LocalWorkers | undefined;
  const stopOthers = () => others?.stop();
  options.stopSignal?.addEventListener("abort", stopOthers);
  try {
    const result = await runStudy({
      ...options,
      concurrency: workers > 1 ? perWorker : options.concurrency,
      rateShare,
      lease: {
        leaseMs: options.leaseSeconds === undefined ? undefined : options.leaseSeconds * 1000,
        erroredBefore: passStart,
      },
      onRecorded: (runId) => {
        if (workers > 1 && options.store) {
          others = startLocalWorkers({
            command: options.workerCommand,
            url: options.store,
            runId,
            count: workers - 1,
            concurrency: perWorker,
            leaseSeconds: options.leaseSeconds,
            erroredBefore: passStart,
            rateShare,
          });
        }
      },
    });
    if (!others || !options.store) return { ...result, workerExits: [] };
    const workerExits = await others.done;
    const final = await finalState(options.store, result.runId);
    const { summary } = result;
    // The budget as every worker left it (this one's report was read before the others stopped).
    if (summary.budget && final.budget) {
      summary.budget = budgetReport(summary.budget.limits, final.budget, summary.budget.refused);
    }
    return { ...result, counts: final.counts, workerExits };
  } finally {
    options.stopSignal?.removeEventListener("abort", stopOthers);
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
