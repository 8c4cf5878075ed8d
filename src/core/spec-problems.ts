/**
 * Problems in a study spec, as every spec check words them: located at FILE:LINE:COL, naming the
 * YAML path and describing the value found, and raised together as one SpecError.
 */
import { InputError } from "./errors.js";

/** One problem in a spec, located in the source (1-based line and column). */
/** A step of a YAML path: a mapping key or a sequence index. */
export type PathSegment = string | number;

export interface SpecProblem {
  line: number;
  col: number;
  message: string;
}

/** An invalid spec: an InputError (exit code 2) that also carries the problems, one per line of its message. */
export class SpecError extends InputError {
  readonly problems: SpecProblem[];

  constructor(
    readonly file: string,
    problems: SpecProblem[],
  ) {
    const sorted = [...problems].sort((a, b) => a.line - b.line || a.col - b.col || a.message.localeCompare(b.message));
    const unique = sorted.filter((p, i) => i === 0 || formatProblem(file, p) !== formatProblem(file, sorted[i - 1]));
    const count = unique.length === 1 ? "1 problem" : `${unique.length} problems`;
    super([`invalid study spec ${file} (${count}):`, ...unique.map((p) => formatProblem(file, p))].join("\n"));
    this.name = "SpecError";
    this.problems = unique;
  }
}

function formatProblem(file: string, p: SpecProblem): string {
  return `${file}:${p.line}:${p.col}: ${p.message}`;
}

/** `models[1].params.temperature`; keys that are not plain words are quoted. */
export function formatPath(path: PathSegment[]): string {
  if (path.length === 0) return "(top level)";
  return path
    .map((segment, i) => {
      if (typeof segment === "number") return `[${segment}]`;
      if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) return `[${JSON.stringify(segment)}]`;
      return i === 0 ? segment : `.${segment}`;
    })
    .join("");
}

export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value (null)";
  if (typeof value === "string")
    return value.length > 60 ? `${JSON.stringify(value.slice(0, 57))}...` : JSON.stringify(value);
  if (Array.isArray(value))
    return value.length === 0 ? "an empty list" : `a list of ${value.length} item${value.length === 1 ? "" : "s"}`;
  if (typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 0) return "an empty mapping";
    return `a mapping (keys ${keys.slice(0, 5).join(", ")}${keys.length > 5 ? ", ..." : ""})`;
  }
  return String(value);
}
