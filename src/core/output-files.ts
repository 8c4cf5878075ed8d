/**
 * Where commands write their outputs (study directories, exports, reports, logs): a missing
 * parent folder is created, and a file-system failure becomes one line naming the path and the
 * reason (an InputError, exit 2), never a stack trace.
 */
import { createWriteStream, mkdirSync, statSync, type WriteStream, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { InputError } from "./errors.js";

/** Why an operation on a path failed, in words (the errno code kept for searching). */
function reasonOf(error: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ENOENT: "a folder on the way does not exist",
    ENOTDIR: "a part of the path is a file, not a folder",
    EEXIST: "a file of that name is in the way",
    EISDIR: "it is a folder",
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    EROFS: "the file system is read-only",
    ENOSPC: "no space left on the device",
    ENAMETOOLONG: "the name is too long",
  };
  const code = error.code ?? "";
  return words[code] ? `${words[code]} (${code})` : error.message;
}

/** Whether an error is a file-system failure (it has an errno code). */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string" && "syscall" in error;
}

/** A file-system failure as one line: `cannot WHAT PATH: reason`. Other errors pass through. */
export function fileSystemError(error: unknown, what: string, path: string): unknown {
  return isFileSystemError(error) ? new InputError(`cannot ${what} ${path}: ${reasonOf(error)}`) : error;
}

/** Runs a file-system step (sync or async), turning its failure into one line (see fileSystemError). */
export function onFileSystem<T>(what: string, path: string, step: () => T): T {
  const convert = (error: unknown) => {
    throw fileSystemError(error, what, path);
  };
  try {
    const result = step();
    return (result instanceof Promise ? result.catch(convert) : result) as T;
  } catch (error) {
    return convert(error);
  }
}

/** What is at a path (undefined: nothing); a path through a file is refused in one line. */
function statOutput(path: string, what: string) {
  return onFileSystem(`create ${what}`, path, () => statSync(path, { throwIfNoEntry: false }));
}

/** Creates a folder and its parents; refuses, in one line, a path that is a file or cannot be created. */
export function ensureDirectory(path: string, what: string): void {
  const existing = statOutput(path, what);
  if (existing && !existing.isDirectory()) throw new InputError(`${what} ${path} is a file, not a folder`);
  onFileSystem(`create ${what}`, path, () => mkdirSync(path, { recursive: true }));
}

/** Refuses a file path naming a folder, and creates its missing parent folders. */
export function prepareOutputFile(path: string, what: string): void {
  const existing = statOutput(path, what);
  if (existing?.isDirectory()) throw new InputError(`${what} ${path} is a folder; name a file`);
  ensureDirectory(dirname(resolve(path)), `folder of ${what}`);
}

/** Writes a whole output file (parent folders created); a failure is one line. */
export function writeOutputFile(path: string, data: string | Uint8Array, what: string): void {
  prepareOutputFile(path, what);
  onFileSystem(`write ${what}`, path, () => writeFileSync(path, data));
}

export interface OutputStream {
  stream: WriteStream;
  /** Rejects (one line) when a write fails: await it beside the writes. */
  failed: Promise<never>;
  /** Ends the stream; rejects with the first write failure, if any. */
  close(): Promise<void>;
}

/**
 * Opens a stream to an output file (parent folders created) once the file is open, so an error
 * opening it is one line here rather than an unhandled 'error' event later.
 */
export async function openOutputStream(path: string, what: string): Promise<OutputStream> {
  prepareOutputFile(path, what);
  const stream = createWriteStream(path);
  await new Promise<void>((opened, refused) => {
    stream.once("open", () => opened());
    stream.once("error", (error) => refused(fileSystemError(error, `write ${what}`, path)));
  });
  let failure: unknown;
  let fail: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // Nobody may be awaiting `failed` when a write fails: the rejection is observed here too.
  failed.catch(() => {});
  stream.on("error", (error) => {
    failure ??= fileSystemError(error, `write ${what}`, path);
    fail(failure);
  });
  // end's callback hears a write failure before the 'error' event is emitted.
  const close = () =>
    new Promise<void>((closed, refused) => {
      if (stream.destroyed) return failure ? refused(failure) : closed();
      stream.end((error?: Error | null) => {
        failure ??= error ? fileSystemError(error, `write ${what}`, path) : undefined;
        return failure ? refused(failure) : closed();
      });
    });
  return { stream, failed, close };
}
