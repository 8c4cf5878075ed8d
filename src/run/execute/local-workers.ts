/**
 * Worker processes beside a run on a PostgreSQL store (`run --workers N`): N - 1 more processes,
 * each joining the run by its store URL and claiming trials under leases, so none is executed
 * twice. Each holds an IPC channel to this process, whose closing (this process dying, however)
 * stops it.
 */
import { type ChildProcess, spawn } from "node:child_process";

/** How a worker process ended: its exit code, or the signal that ended it; `error` when it could not start. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: string;
}

export interface LocalWorkersOptions {
  /** The command that joins a run as a worker, before its arguments (the CLI's `worker` command). */
  command: { executable: string; args: readonly string[] };
  url: string;
  runId: string;
  count: number;
  concurrency: number;
  leaseSeconds?: number;
  erroredBefore: string;
  rateShare: number;
}

export interface LocalWorkers {
  done: Promise<WorkerExit[]>;
  stop: () => void;
}

/** Starts `count` worker processes on the run, each with `concurrency` trials in flight; resolves with how each ended. */
export function startLocalWorkers(options: LocalWorkersOptions): LocalWorkers {
  const children: ChildProcess[] = [];
  for (let i = 0; i < options.count; i++) {
    const args = [
      ...options.command.args,
      options.url,
      "--run",
      options.runId,
      "--concurrency",
      String(options.concurrency),
      "--errored-before",
      options.erroredBefore,
      "--rate-share",
      String(options.rateShare),
      ...(options.leaseSeconds === undefined ? [] : ["--lease-seconds", String(options.leaseSeconds)]),
    ];
    children.push(spawn(options.command.executable, args, { stdio: ["ignore", "ignore", "inherit", "ipc"] }));
  }
  const done = Promise.all(
    children.map(
      (child) =>
        new Promise<WorkerExit>((resolve) => {
          child.on("error", (error) => resolve({ code: null, signal: null, error: error.message }));
          child.on("close", (code, signal) => resolve({ code, signal }));
        }),
    ),
  );
  const stop = () => {
    for (const child of children) child.kill("SIGINT");
  };
  return { done, stop };
}
