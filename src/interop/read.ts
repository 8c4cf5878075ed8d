/**
 * Reading foreign files defensively: JSON parsed with the file and entry in every error, and
 * zod checks of only the fields we use (unknown fields pass through), so a newer log format
 * still imports as long as what we read is there.
 */
import type { z } from "zod";
import { InputError } from "../core/errors.js";
import { type ReadLimit, readBoundedText, UnreadablePathError } from "../core/guarded-read.js";
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
export function readText(file: string, limit: ReadLimit): string {
  try {
    return readBoundedText(file, limit);
  } catch (error) {
    if (error instanceof UnreadablePathError) throw logError(file, null, error.reason);
    throw error;
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
