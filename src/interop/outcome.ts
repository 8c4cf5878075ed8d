/**
 * A foreign score value as a Parallax outcome (1 correct/safe, 0 not, null unscored). The
 * defaults cover the values the frameworks write (Inspect's C/I/P/N, correct/incorrect, booleans,
 * 1/0); the mapping adds values and an optional threshold for numeric scores.
 */
import type { ImportMapping } from "./mapping.js";

/** Inspect: C correct, I incorrect, N no answer (counted wrong), P partial (unscored unless mapped). */
const DEFAULT_VALUES: Readonly<Record<string, 0 | 1 | null>> = {
  C: 1,
  I: 0,
  N: 0,
  P: null,
  correct: 1,
  incorrect: 0,
  true: 1,
  false: 0,
};

export function outcomeOf(value: unknown, outcomes: ImportMapping["outcomes"]): 0 | 1 | null {
  if (value === null || value === undefined) return null;
  const key = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (key in outcomes.values) return outcomes.values[key];
  if (typeof value === "number" && Number.isFinite(value)) {
    if (outcomes.threshold !== undefined) return value >= outcomes.threshold ? 1 : 0;
    if (value === 1 || value === 0) return value;
    return null;
  }
  if (key in DEFAULT_VALUES) return DEFAULT_VALUES[key];
  return null;
}

/** A value as the log wrote it, for messages: JSON, but a non-finite number by its name (JSON would say null). */
export function describeValue(value: unknown): string {
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}

/**
 * Why a score value cannot be read, or null when it can: a number must be finite and inside the
 * scorer's declared range, a text label must be one the defaults or the mapping know. Values of
 * other shapes (lists, objects: corpus or multi-value scores) are kept unscored.
 */
export function scoreProblem(
  value: unknown,
  range: readonly [number, number] | undefined,
  outcomes: ImportMapping["outcomes"],
): string | null {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return `expected a finite number, found ${describeValue(value)}`;
    if (range && (value < range[0] || value > range[1]))
      return `expected a number in [${range[0]}, ${range[1]}] (the scorer's range), found ${value}`;
    return null;
  }
  if (typeof value === "string" && !(value in outcomes.values) && !(value in DEFAULT_VALUES)) {
    return `unknown label ${JSON.stringify(value)} (known: ${[...Object.keys(DEFAULT_VALUES), ...Object.keys(outcomes.values)].join(", ")}); give its outcome in the mapping (outcomes: values: {${JSON.stringify(value)}: 1, 0 or null})`;
  }
  return null;
}
