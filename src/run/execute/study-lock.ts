/**
 * The study-directory lock: one `parallax run` at a time per directory, so two runs never pay
 * for the same calls twice. The lock file is created atomically (O_EXCL) and holds the
 * holder's pid and host. A lock is taken over only when its holder is proven dead: its process
 * is gone from this host, and nothing it started is still at work (`stillAtWork`: on a
 * PostgreSQL store, a worker of the run on this host with a live heartbeat and a live process).
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ParallaxError } from "../../core/errors.js";
import { processAlive } from "../../core/stale.js";

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

export interface LockOptions {
  /** Hears about a stale lock taken over. */
  onNote?: (message: string) => void;
  /** What of a dead holder's run is still at work (a worker it started), or undefined when nothing is. */
  stillAtWork?: () => Promise<string | undefined>;
}

/**
 * Takes the lock of a study directory or throws (exit 2) naming the holder's pid and host, or
 * what of a dead holder's run still works. The lock is released by `release()` and, as a last
 * resort, when the process exits.
 */
export async function acquireStudyLock(dir: string, options: LockOptions = {}): Promise<StudyLock> {
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
    const atWork = await options.stillAtWork?.();
    if (atWork !== undefined) {
      throw new ParallaxError(
        `${dir} is in use: its run (pid ${holder.pid}) is gone, but ${atWork}; wait for it to finish, or stop it`,
        EXIT_LOCKED,
      );
    }
    // Another run may have taken the stale lock over while we looked: only the same holder's goes.
    if (!sameHolder(readHolder(path), holder)) continue;
    options.onNote?.(
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

function sameHolder(a: LockHolder | undefined, b: LockHolder): boolean {
  return a !== undefined && a.pid === b.pid && a.host === b.host && a.startedAt === b.startedAt;
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
