/**
 * Reading foreign files defensively: JSON parsed with the file and entry in every error, and
 * zod checks of only the fields we use (unknown fields pass through), so a newer log format
 * still imports as long as what we read is there.
 */
import { createReadStream, readdirSync, realpathSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import * as z from "zod";
import { InputError } from "../core/errors.js";
import { type ReadLimit, readBoundedText, requireRegularFile, UnreadablePathError } from "../core/guarded-read.js";
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from "./zip.js";

/** An InputError naming the file, the entry inside it (zip member, line, JSON path) and the problem. */
export function logError(file: string, entry: string | null, message: string): InputError {
  return new InputError(`${file}${entry ? ` (${entry})` : ""}: ${message}`);
}

/** The most of a log file read as text: the cap on an inflated zip entry, raised by the same option. */
export function logReadLimit(limits: ZipLimits = DEFAULT_ZIP_LIMITS): ReadLimit {
  return { bytes: limits.entryBytes, what: "a log file or zip entry", raise: "--max-entry-mb" };
}

/** A log file's text: a FIFO, a device or a file over `limit` is refused, naming the file. */
export function readText(file: string, limit: ReadLimit = logReadLimit()): string {
  try {
    return readBoundedText(file, limit);
  } catch (error) {
    if (error instanceof UnreadablePathError) throw logError(file, null, error.reason);
    throw error;
  }
}

/** Refuses what is not a regular file (a FIFO, a device, a socket) with the log's name. */
export function guardedPath(file: string): void {
  try {
    requireRegularFile(file);
  } catch (error) {
    if (error instanceof UnreadablePathError) throw logError(file, null, error.reason);
    throw error;
  }
}

/** A path given to `import`: a file as given, or the files of a folder, recursively, sorted by name. */
export interface FoundFile {
  file: string;
  /** True when the file was named on the command line (then it must be a log of the format). */
  given: boolean;
}

export function filesOf(paths: readonly string[]): FoundFile[] {
  const found: FoundFile[] = [];
  const visited = new Set<string>();
  const walk = (dir: string) => {
    // A symbolic link back up the tree would loop: each real folder is read once.
    const real = realpathSync(dir);
    if (visited.has(real)) return;
    visited.add(real);
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) walk(path);
      else found.push({ file: path, given: false });
    }
  };
  for (const path of paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) throw logError(path, null, "no such file or directory");
    if (stat.isDirectory()) walk(path);
    else found.push({ file: path, given: true });
  }
  return found;
}

/**
 * Each non-blank line of a JSONL file with its 1-based number, read as a stream: a file larger
 * than the longest string V8 holds (about 512 MiB) is read line by line, never whole. A visit
 * that returns a promise is awaited before the next line.
 */
export async function forEachLine(file: string, visit: (line: string, lineNumber: number) => unknown): Promise<void> {
  guardedPath(file); // a FIFO would block the stream, a device never end it
  const stream = createReadStream(file, { encoding: "utf8" });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once("ready", () => resolve());
    stream.once("error", reject);
  });
  try {
    await opened;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw logError(file, null, code === "ENOENT" ? "no such file" : `cannot read (${code ?? String(error)})`);
  }
  let lineNumber = 0;
  for await (const line of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    lineNumber++;
    if (line.trim() === "") continue;
    const visited = visit(line, lineNumber);
    if (visited instanceof Promise) await visited;
  }
}

export function parseJson(text: string, file: string, entry: string | null): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw logError(file, entry, `not valid JSON (${(error as Error).message})`);
  }
}

/** The value checked against `schema`; the first problems named by field path and what was expected. */
export function checked<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  entry: string | null,
): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String).join(".") || "(top level)";
    return `field '${path}': ${issue.message}`;
  });
  throw logError(file, entry, problems.join("; "));
}

/**
 * Any number, infinite ones included (zod's number refuses them with a message that names no
 * value): score values are checked in one place (outcome.ts) the same way for every format.
 */
export const anyNumber = z.custom<number>((value) => typeof value === "number", "expected a number");

/** The value at a dotted path of a JSON value, or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const key of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** Text of a message content that may be a string or a list of parts ({type: "text", text}). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : (part as { text?: unknown })?.text))
      .filter((t): t is string => typeof t === "string")
      .join("");
  }
  return content === null || content === undefined ? "" : JSON.stringify(content);
}

/** A score, id or answer as text (ids are numbers or strings in the logs). */
export function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}
