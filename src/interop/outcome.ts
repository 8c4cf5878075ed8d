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
