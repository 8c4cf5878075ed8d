/**
 * An error thrown on a worker thread, carried to the thread that asked for the work. Structured
 * cloning keeps an error's message but not its class, and the class decides the exit code (an
 * InputError exits 2) and how a spec problem is shown, so the user's error classes are rebuilt.
 */
import { InputError, ParallaxError } from "./errors.js";
import { SpecError, type SpecProblem } from "./spec-problems.js";

export type ThreadFailure =
  | { kind: "spec"; file: string; problems: SpecProblem[] }
  | { kind: "input"; message: string }
  | { kind: "parallax"; message: string; exitCode: number }
  | { kind: "error"; message: string; stack?: string };

export function threadFailure(error: unknown): ThreadFailure {
  if (error instanceof SpecError) return { kind: "spec", file: error.file, problems: error.problems };
  if (error instanceof InputError) return { kind: "input", message: error.message };
  if (error instanceof ParallaxError) return { kind: "parallax", message: error.message, exitCode: error.exitCode };
  if (error instanceof Error)
    return { kind: "error", message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  return { kind: "error", message: String(error) };
}

export function rebuiltError(failure: ThreadFailure): Error {
  switch (failure.kind) {
    case "spec":
      return new SpecError(failure.file, failure.problems);
    case "input":
      return new InputError(failure.message);
    case "parallax":
      return new ParallaxError(failure.message, failure.exitCode);
    case "error": {
      const error = new Error(failure.message);
      if (failure.stack) error.stack = failure.stack;
      return error;
    }
  }
}
