/**
 * What a test needs from the machine beyond Node and npm's packages: bubblewrap, Chromium,
 * PostgreSQL and the optional local-model engine. `npm run setup` installs the system ones on
 * Debian; a test whose prerequisite is missing skips with one reason of the form
 * "needs NAME: why; how to get it", which scripts/test.mjs counts in its closing summary.
 *
 * `describeNeeding(reason, name, fn)` gates a whole suite test by test, so that every skipped
 * test is counted (node:test counts a skipped suite as one, whatever it holds): inside it, the
 * `it`/`test` and hooks exported here skip, and the hooks do not run.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import * as nodeTest from "node:test";

export const BWRAP = "/usr/bin/bwrap";
export const CHROMIUM = "/usr/bin/chromium";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let bubblewrapReason: string | false | undefined;
/** bubblewrap must run, not only exist (a container may forbid its namespaces). */
export function needsBubblewrap(): string | false {
  if (bubblewrapReason !== undefined) return bubblewrapReason;
  if (!executable(BWRAP)) {
    bubblewrapReason = `needs bubblewrap: ${BWRAP} not found; \`npm run setup\` installs it (Debian: apt-get install bubblewrap)`;
  } else {
    const probe = spawnSync(BWRAP, ["--ro-bind", "/", "/", "--unshare-all", "true"], { encoding: "utf8" });
    bubblewrapReason =
      probe.status === 0
        ? false
        : `needs bubblewrap: ${BWRAP} does not run here (${(probe.stderr || probe.error?.message || `exit ${probe.status}`).trim()})`;
  }
  return bubblewrapReason;
}

export function needsChromium(): string | false {
  return executable(CHROMIUM)
    ? false
    : `needs chromium: ${CHROMIUM} not found; \`npm run setup\` installs it (Debian: apt-get install chromium)`;
}

export function needsPostgres(): string | false {
  return process.env.PARALLAX_TEST_PG_URL
    ? false
    : "needs postgresql: PARALLAX_TEST_PG_URL is not set and no test server was started; `npm run setup` installs PostgreSQL (Debian: apt-get install postgresql), and `npm test` starts a throwaway cluster";
}

export function needsLlamaEngine(): string | false {
  try {
    createRequire(import.meta.url).resolve("node-llama-cpp");
    return false;
  } catch {
    return "needs the llama engine: node-llama-cpp is not installed; `npm run setup:llama` installs its CPU build";
  }
}

/** The shared materials beside the checkout (../shared): the published datasets and golden fixtures. */
export const SHARED_DIR = join(import.meta.dirname, "..", "..", "..", "shared");

export function needsSharedData(): string | false {
  return existsSync(join(SHARED_DIR, "datasets")) && existsSync(join(SHARED_DIR, "golden"))
    ? false
    : `needs the shared materials: ${SHARED_DIR} (datasets, golden) not found beside the checkout`;
}

/** A spec's prerequisite: the shared materials when it reads items from ../shared. */
export function needsSpecData(specPath: string): string | false {
  return readFileSync(specPath, "utf8").includes("/shared/") ? needsSharedData() : false;
}

/** The first missing prerequisite's reason, or false when all are there. */
export function needsAll(...checks: Array<() => string | false>): string | false {
  for (const check of checks) {
    const reason = check();
    if (reason) return reason;
  }
  return false;
}

type TestFn = nodeTest.TestFn;
type HookFn = Parameters<typeof nodeTest.before>[0];

/** The reason of the innermost gated suite being declared, while its body runs. */
const gates: string[] = [];
const gate = (): string | undefined => gates[gates.length - 1];

export function describeNeeding(reason: string | false | undefined, name: string, fn: () => void): void {
  nodeTest.describe(name, () => {
    if (reason) gates.push(reason);
    try {
      fn();
    } finally {
      if (reason) gates.pop();
    }
  });
}

export function it(name: string, optionsOrFn: nodeTest.TestOptions | TestFn, maybeFn?: TestFn): void {
  const [options, fn] = typeof optionsOrFn === "function" ? [{}, optionsOrFn] : [optionsOrFn, maybeFn];
  const reason = gate();
  nodeTest.it(name, reason ? { ...options, skip: reason } : options, fn);
}
export const test = it;

const hook =
  (register: (fn: HookFn) => void) =>
  (fn: HookFn): void => {
    if (!gate()) register(fn);
  };
export const before = hook((fn) => nodeTest.before(fn));
export const after = hook((fn) => nodeTest.after(fn));
export const beforeEach = hook((fn) => nodeTest.beforeEach(fn));
export const afterEach = hook((fn) => nodeTest.afterEach(fn));
