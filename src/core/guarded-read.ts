/**
 * Reading what a user names (a spec, a benchmark source, a log to import, a plugin, a model file):
 * only a regular file, or a folder where one is expected, is opened, and a file is read up to a
 * declared number of bytes. A device (/dev/zero), a FIFO or a socket is refused before it is
 * opened, so it can neither hang a command nor grow it until it runs out of memory; a file over
 * its limit is refused with the limit and what raises it. Every refusal is an InputError (exit 2).
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { InputError } from "./errors.js";

const MIB = 1024 * 1024;

/** A path Parallax refuses to read: `reason` says why, without any of the file's content. */
export class UnreadablePathError extends InputError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = "UnreadablePathError";
  }
}

/** The most a read takes, what it is a limit on, and what raises it (an option or a spec field). */
export interface ReadLimit {
  bytes: number;
  /** What the limit is on: "a benchmark source file". */
  what: string;
  /** What raises it: "--max-entry-mb", "benchmarks[0].max_source_mb"; absent: a fixed limit. */
  raise?: string;
}

export type PathKind = "file" | "directory";

/** What a stat says a path is, in words, for anything but a regular file or a folder. */
function otherKind(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

function statOf(path: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new UnreadablePathError(path, "no such file or folder");
    throw new UnreadablePathError(path, `cannot read (${code ?? String(error)})`);
  }
}

/** A regular file or a folder (symbolic links followed); anything else is refused. */
export function readablePathKind(path: string, expected = "a regular file or a folder"): PathKind {
  const stats = statOf(path);
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  throw new UnreadablePathError(path, `expected ${expected}, found ${otherKind(stats)}`);
}

/** Refuses anything but a regular file (a folder, a device, a FIFO, a socket, a missing path). */
export function requireRegularFile(path: string): void {
  const stats = statOf(path);
  if (stats.isFile()) return;
  throw new UnreadablePathError(
    path,
    `expected a regular file, found ${stats.isDirectory() ? "a folder" : otherKind(stats)}`,
  );
}

/** Why a read over `limit` is refused: the limit and what raises it. */
export function overLimitReason(limit: ReadLimit): string {
  const size = limit.bytes % MIB === 0 ? `${limit.bytes / MIB} MiB` : `${limit.bytes} bytes`;
  const raise = limit.raise ? `; raise it with ${limit.raise}` : "";
  return `larger than the ${size} limit on ${limit.what}${raise}`;
}

/**
 * The bytes of a regular file, at most `limit.bytes` of them. The file is opened without blocking
 * (a FIFO swapped in after the stat cannot hang the open) and checked again on its descriptor;
 * the read counts bytes rather than trusting the size, which a /proc file reports as 0.
 */
export function readBoundedBytes(path: string, limit: ReadLimit): Buffer {
  requireRegularFile(path);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new UnreadablePathError(path, `cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UnreadablePathError(path, `expected a regular file, found ${otherKind(stats)}`);
    if (stats.size > limit.bytes) throw new UnreadablePathError(path, overLimitReason(limit));
    return readAtMost(fd, path, limit);
  } finally {
    closeSync(fd);
  }
}

function readAtMost(fd: number, path: string, limit: ReadLimit): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(MIB, limit.bytes + 1 - total));
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) break;
    chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
    total += read;
    if (total > limit.bytes) throw new UnreadablePathError(path, overLimitReason(limit));
  }
  return Buffer.concat(chunks, total);
}

/** A regular file's text (UTF-8), at most `limit.bytes` of it; see readBoundedBytes. */
export function readBoundedText(path: string, limit: ReadLimit): string {
  return readBoundedBytes(path, limit).toString("utf8");
}

/** Megabytes (MiB) as bytes, for limits declared in MiB. */
export function mebibytes(mb: number): number {
  return mb * MIB;
}

/** Whether `path` (relative paths from `folder`) lies outside `folder`, symbolic links resolved. */
export function isOutsideFolder(path: string, folder: string): boolean {
  const rel = relative(realOrResolved(folder), realOrResolved(resolve(folder, path)));
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
