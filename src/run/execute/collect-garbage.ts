/**
 * Full garbage collections at fixed points of a run: once between its setup and its trials, and
 * every GC_EVERY trials. Preparing a large study (data sets, exemplar pools) leaves hundreds of
 * MB of garbage, and V8 sizes its next collection from the heap it sees, letting the heap grow
 * to two or three times what stays live (the study, ~120 MB on SafetyRepro) over a long run:
 * collecting at these points keeps the heap, and peak RSS, near what stays live at any size.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Trials between two collections: a pause of ~0.1 s per some 20 s of trials on the simulated panel. */
export const GC_EVERY = 5_000;

export function collectGarbage(): void {
  // The documented way to reach gc() without starting Node with --expose-gc (as Jest does).
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (() => void) | undefined;
  gc?.();
}
