/**
 * Row-level bad-data handling shared by the loaders. A bad row (malformed JSON, a missing
 * field, an unknown label) fails the load with its file and row, or, when the spec sets
 * `options.skip_bad_rows: true`, is skipped and counted. Never a silent default.
 */
import type { Item } from "../contracts/item.js";
import type { BenchmarkSpec } from "../contracts/spec.js";
import { InputError } from "../core/errors.js";
import type { LoadedBenchmark } from "./types.js";
import { jsonParseProblem, shown } from "./quote.js";

/** Thrown by field readers for a problem confined to one row. */
export class RowError extends Error {}

export class ItemCollector {
  private readonly items: Item[] = [];
  private readonly sources: LoadedBenchmark["sources"] = {};
  private readonly skipped: NonNullable<LoadedBenchmark["skipped"]> = [];

  constructor(private readonly skipBadRows: boolean) {}

  static forSpec(spec: BenchmarkSpec): ItemCollector {
    const skip = spec.options?.skip_bad_rows;
    if (skip !== undefined && typeof skip !== "boolean") {
      throw new InputError(`benchmark '${spec.id}': options.skip_bad_rows must be true or false`);
    }
    return new ItemCollector(skip === true);
  }

  /** Builds one row's item; a RowError becomes a bad row (fail or skip), anything else propagates. */
  row(file: string, row: number, build: () => Item | undefined): void {
    try {
      const item = build();
      if (item === undefined) return;
      if (this.sources[item.id] !== undefined) {
        const first = this.sources[item.id];
        throw new RowError(`duplicate item id ${shown(item.id)} (first at ${first.file} row ${first.row})`);
      }
      this.items.push(item);
      this.sources[item.id] = { file, row };
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      this.bad(file, row, error.message);
    }
  }

  bad(file: string, row: number, reason: string): void {
    if (!this.skipBadRows) throw new InputError(`${file}: row ${row}: ${reason}`);
    this.skipped.push({ file, row, reason });
  }

  result(): LoadedBenchmark {
    return { items: this.items, sources: this.sources, skippedRows: this.skipped.length, skipped: this.skipped };
  }
}

type Json = Record<string, unknown>;

export function asRecord(value: unknown, what = "record"): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new RowError(`${what} is not a JSON object`);
  return value as Json;
}

export function str(record: Json, key: string, opts: { allowEmpty?: boolean } = {}): string {
  const value = record[key];
  if (value === undefined || value === null) throw new RowError(`missing field '${key}'`);
  if (typeof value !== "string") throw new RowError(`field '${key}' is not a string`);
  if (!opts.allowEmpty && value.trim() === "") throw new RowError(`field '${key}' is empty`);
  return value;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], key: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new RowError(`unknown ${key} value ${shown(value)} (expected ${allowed.join(" or ")})`);
  }
  return value as T;
}

/** Parses one JSONL line; malformed JSON is a RowError. */
export function parseJsonLine(text: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RowError(`malformed JSON: ${jsonParseProblem(error)}`);
  }
  return asRecord(value);
}

/**
 * Non-blank lines of a text file with their 1-based line numbers (CRLF tolerated). Each line is
 * its own string: an item keeping a line would otherwise keep the whole file's text alive.
 */
export function textLines(text: string): { text: string; line: number }[] {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return src
    .split(/\r?\n/)
    .map((line, index) => ({ text: line, line: index + 1 }))
    .filter((entry) => entry.text.trim() !== "")
    .map((entry) => ({ text: ownString(entry.text), line: entry.line }));
}

/**
 * The same text in a string of its own. V8 makes a substring (split, slice) a view that keeps
 * its parent alive; slicing a fresh concatenation copies the text into a new flat string first.
 */
export function ownString(text: string): string {
  return ` ${text}`.slice(1);
}
