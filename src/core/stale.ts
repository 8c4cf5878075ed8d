/**
 * Leftovers of a killed process: directories named after the process that made them
 * (`PREFIX<pid>...`) are stale once that process is gone, and are removed by the next one.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Whether a process with this id runs (on this machine, in this PID namespace). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Entries of `parent` named `prefix` + a process id (then a non-digit or the end) whose process is gone. */
export function staleEntries(parent: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (!name.startsWith(prefix)) return [];
    const pid = /^(\d+)(\D|$)/.exec(name.slice(prefix.length))?.[1];
    if (pid === undefined || Number(pid) === process.pid || processAlive(Number(pid))) return [];
    return [join(parent, name)];
  });
}
