/**
 * `parallax run` as a child process, for the crash-safety tests: start it, count the trials it
 * has committed, and SIGKILL it once enough are.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

export function startRun(specPath: string, outDir: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CLI, "run", specPath, "--out", outDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function finishedCount(outDir: string): number {
  const file = join(outDir, "parallax.db");
  if (!existsSync(file)) return 0;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("select count(*) as n from trials where status = 'finished'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0; // tables not created yet
  }
}

/** Waits until `finished` trials are committed (or the child exits), then SIGKILLs it. */
export async function killWhenFinished(
  child: ChildProcess,
  outDir: string,
  finished: number,
  pollMs = 20,
): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let done = false;
  void exited.then(() => {
    done = true;
  });
  while (!done && finishedCount(outDir) < finished) await new Promise((r) => setTimeout(r, pollMs));
  child.kill("SIGKILL");
  await exited;
}
