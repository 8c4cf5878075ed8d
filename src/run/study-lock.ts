/**
 * The study-directory lock: one `parallax run` at a time per directory, so two runs never pay
 * for the same calls twice. The lock file is created atomically (O_EXCL) and holds the
 * holder's pid and host; a lock whose holder process is dead on this host is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ParallaxError } from "../core/errors.js";

export const LOCK_FILE = "parallax.lock";
/** Exit code of a run refused because another run holds the directory. */
export const EXIT_LOCKED = 2;

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

export interface StudyLock {
  path: string;
  release: () => void;
}

/** The lock's holder as recorded in the file, or undefined when it cannot be read. */
function readHolder(path: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof parsed.pid === "number" && typeof parsed.host === "string") {
      return { pid: parsed.pid, host: parsed.host, startedAt: String(parsed.startedAt ?? "") };
    }
  } catch {
    // unreadable or half-written: treated below
  }
  return undefined;
}

/** Whether a process with this pid exists on this host (EPERM: it exists, owned by another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryCreate(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Takes the lock of a study directory or throws (exit 2) naming the holder's pid and host.
 * `onNote` hears about a stale lock taken over. The lock is released by `release()` and, as a
 * last resort, when the process exits.
 */
export function acquireStudyLock(dir: string, onNote?: (message: string) => void): StudyLock {
  const path = join(dir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path, me)) return held(path);
    const holder = readHolder(path);
    if (holder && (holder.host !== me.host || processAlive(holder.pid))) {
      throw new ParallaxError(
        `${dir} is in use by another run (pid ${holder.pid} on host ${holder.host}, since ${holder.startedAt}); ` +
          `wait for it to finish, or remove ${path} if that process is gone`,
        EXIT_LOCKED,
      );
    }
    if (!holder) {
      throw new ParallaxError(
        `${dir} is locked (${path} exists but names no holder); remove it if no run uses this directory`,
        EXIT_LOCKED,
      );
    }
    onNote?.(
      `note: took over a stale lock on ${dir}: its holder (pid ${holder.pid} on ${holder.host}) is no longer running`,
    );
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  throw new ParallaxError(`could not lock ${dir}: another run took it at the same time`, EXIT_LOCKED);
}

function held(path: string): StudyLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off("exit", release);
    // Only our own lock is removed: a lock another process took over is left alone.
    if (readHolder(path)?.pid !== process.pid) return;
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  };
  process.on("exit", release);
  return { path, release };
}
