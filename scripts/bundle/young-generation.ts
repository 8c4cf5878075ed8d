/**
 * The size of V8's young generation while the CLI starts. V8 doubles the semi-spaces (up to
 * 16 MB each) when a scavenge finds most objects alive, as it does while modules load, and each
 * page it then touches for the first time costs a page fault: `plan` on the quickstart touched
 * about 7 MB more, some 30 ms of its 0.33 s (docs/PERFORMANCE.md, "Startup"). So the core and
 * the body load, and `plan` runs, with growth off (`--semi-space-growth-factor=1`, which V8 reads
 * each time it would grow); once the body is loaded, its long-running commands get V8's default
 * back.
 *
 * V8 stamps a code cache with a hash of its flags and rejects a cache made under other flags, so
 * the loader compiles each file, and writes its cache, in one setting: the shell in the default,
 * the core and the body in the start-up setting. A user's own semi-space options (Node flags or
 * NODE_OPTIONS, which also key the caches) are left alone.
 */
import { createRequire } from "node:module";

export type YoungGeneration = "default" | "startup";

const FLAGS: Record<YoungGeneration, string> = {
  startup: "--semi-space-growth-factor=1",
  // V8's default growth factor.
  default: "--semi-space-growth-factor=2",
};

let current: YoungGeneration = "default";

/** The setting now in force. */
export function youngGeneration(): YoungGeneration {
  return current;
}

function userTunesYoungGeneration(): boolean {
  return /semi[-_]space/.test(`${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`);
}

/** Switches the setting; node:v8 is loaded only then (`--version` never needs it). */
export function setYoungGeneration(next: YoungGeneration): void {
  if (next === current || userTunesYoungGeneration()) return;
  const v8 = createRequire(__filename)("node:v8") as typeof import("node:v8");
  v8.setFlagsFromString(FLAGS[next]);
  current = next;
}
