/**
 * One full garbage collection between a run's setup and its trials. Preparing a large study
 * (loading data sets, drawing exemplar pools, storing them) leaves hundreds of MB of garbage,
 * and V8 sizes its next collection from the heap it sees then: collecting once here lets the
 * run's trials work in a heap sized to what stays live (the study), which keeps peak RSS low.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export function collectSetupGarbage(): void {
  // The documented way to reach gc() without starting Node with --expose-gc (as Jest does).
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (() => void) | undefined;
  gc?.();
}
