/**
 * Driving `parallax run` in a child process (tests/helpers/planned-run.ts) while its plan is stored
 * batch by batch, and reading the store beside it: the planning crash tests' shared parts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";

const CHILD = join(import.meta.dirname, "planned-run.ts");

/** Stored and finished trials of the store in outDir (read-only, beside the writer; zeros before it exists). */
export function storeCounts(outDir: string): { stored: number; finished: number } {
  try {
    const db = new Database(join(outDir, "parallax.db"), { readonly: true, fileMustExist: true });
    try {
      return db
        .prepare("select count(*) as stored, count(*) filter (where status = 'finished') as finished from trials")
        .get() as { stored: number; finished: number };
    } finally {
      db.close();
    }
  } catch {
    return { stored: 0, finished: 0 }; // not created yet
  }
}

/** `run SPEC --out OUT` with a planning batch of `planBatch` trials, as a child process. */
export function startPlannedRun(specPath: string, outDir: string, planBatch: number): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CHILD, specPath, outDir, String(planBatch)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * SIGKILLs the child once `finished` trials are committed. Returns the store's counts after the
 * kill, whether the child had ended by itself first, and the finished count it last saw.
 */
export async function killWhenFinished(
  child: ChildProcess,
  outDir: string,
  finished: number,
): Promise<{ stored: number; finished: number; endedFirst: boolean; seenFinished: number }> {
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exit.then(() => {
    exited = true;
  });
  let counts = storeCounts(outDir);
  while (!exited && counts.finished < finished) {
    await new Promise((r) => setTimeout(r, 10));
    counts = storeCounts(outDir);
  }
  const endedFirst = exited;
  child.kill("SIGKILL");
  await exit;
  return { ...storeCounts(outDir), endedFirst, seenFinished: counts.finished };
}
