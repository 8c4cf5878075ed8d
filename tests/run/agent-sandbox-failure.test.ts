/**
 * A sandbox that breaks mid-run: bubblewrap (through PARALLAX_BWRAP) is a wrapper that starts the
 * real one for its first few starts and then fails as bwrap does when it cannot create its
 * namespaces. Each trial that met the failure is errored in the "sandbox" bucket (never finished,
 * its model never shown the failure), the integrity gate fails its cells, and the next run with a
 * working sandbox retries exactly those trials.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizePlan } from "../../src/analysis/core/plan.js";
import { analyzeDirectory } from "../../src/analysis/core/directory.js";
import type { CallRecord } from "../../src/contracts/trial.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialRow } from "../../src/run/store/types.js";
import { BWRAP_ENV } from "../../src/tools/sandbox.js";
import { writeAgentStudy } from "../helpers/agent-study.js";
import { runCli } from "../helpers/cli.js";
import { after, BWRAP, describeNeeding, needsBubblewrap, test } from "../helpers/prerequisites.js";

const SETUP_ERROR = "bwrap: Creating new namespace failed: Operation not permitted";
/** Starts that reach the real bubblewrap: the run's probe, then about half the run's sandboxed calls. */
const WORKING_STARTS = 20;

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A bwrap that works for its first `working` starts (counted under a lock), then fails at setup.
 * Its folder and files are open to every uid: as root, each trial's sandbox starts as its own.
 */
function breakingBwrap(working: number): { path: string; count: () => number } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-bwrap-breaks-"));
  dirs.push(dir);
  chmodSync(dir, 0o755);
  for (const file of ["bwrap.lock", "bwrap.count"]) {
    writeFileSync(join(dir, file), "");
    chmodSync(join(dir, file), 0o666);
  }
  const path = join(dir, "bwrap-breaks");
  writeFileSync(
    path,
    `#!/bin/bash
exec 9>>"${dir}/bwrap.lock"
flock 9
n=$(( $(cat "${dir}/bwrap.count") + 1 ))
echo "$n" > "${dir}/bwrap.count"
exec 9>&-
if [ "$n" -le ${working} ]; then exec ${BWRAP} "$@"; fi
echo "${SETUP_ERROR}" >&2
exit 1
`,
  );
  chmodSync(path, 0o755);
  return { path, count: () => Number(readFileSync(join(dir, "bwrap.count"), "utf8")) };
}

async function withBwrap<T>(path: string | undefined, fn: () => Promise<T>): Promise<T> {
  const before = process.env[BWRAP_ENV];
  if (path === undefined) delete process.env[BWRAP_ENV];
  else process.env[BWRAP_ENV] = path;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env[BWRAP_ENV];
    else process.env[BWRAP_ENV] = before;
  }
}

interface Stored {
  trials: TrialRow[];
  calls: Map<string, CallRecord[]>;
  sandboxCheck: { status: string; cells: unknown[]; detail: string };
}

async function stored(outDir: string): Promise<Stored> {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const trials = await store.listTrials(run.id);
    const calls = new Map<string, CallRecord[]>();
    for (const call of await store.listCalls(run.id))
      calls.set(call.trialId, [...(calls.get(call.trialId) ?? []), call]);
    const { analysis } = await analyzeDirectory(outDir, store, run, {
      plan: normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: false, agents: { resamples: 100 } }),
    });
    const integrity = analysis.integrity as { checks: Array<{ check: string } & Stored["sandboxCheck"]> };
    const sandboxCheck = integrity.checks.find((c) => c.check === "sandbox");
    assert.ok(sandboxCheck, "the integrity gate runs the sandbox check");
    return { trials, calls, sandboxCheck };
  } finally {
    await store.close();
  }
}

const latestCalls = (calls: CallRecord[]) => {
  const latest = Math.max(0, ...calls.map((c) => c.execution));
  return calls.filter((c) => c.execution === latest);
};
const sandboxFailed = (call: CallRecord) => call.role === "tool" && call.note?.infrastructureError !== undefined;
const SANDBOXED_TOOLS = new Set(["bash", "python", "web_browser"]);

describeNeeding(needsBubblewrap(), "a sandbox that breaks mid-run", () => {
  test("errors the trials that met it in the sandbox bucket; the gate fails them; the next run retries them", {
    timeout: 300_000,
  }, async () => {
    const spec = writeAgentStudy({ attempts: 2, agent: "{ tool_error_rate: 0.3 }" });
    dirs.push(spec.dir);
    const bwrap = breakingBwrap(WORKING_STARTS);
    // One trial at a time: the trials run in the store's order, so the break falls at the same call every time.
    const first = await withBwrap(bwrap.path, () =>
      runStudy({ specPath: spec.specPath, outDir: spec.outDir, env: {}, concurrency: 1 }),
    );
    assert.ok(bwrap.count() > WORKING_STARTS, "the run went past the working starts");
    // The first failure stops the run: every other tool call would fail the same way.
    assert.equal(first.summary.stoppedBy, "sandbox");
    assert.ok(first.summary.sandboxFailure?.includes(SETUP_ERROR), `stopped on: ${first.summary.sandboxFailure}`);
    assert.equal(first.counts.errored, 1, "one trial at a time: the first sandbox failure stops the run");
    assert.ok(first.counts.finished > 0, "mid-run: the trials before the break finished");
    const broken = await stored(spec.outDir);

    const metFailure = broken.trials.filter((t) => latestCalls(broken.calls.get(t.id) ?? []).some(sandboxFailed));
    assert.ok(metFailure.length > 0, "some trial met the broken sandbox");
    for (const trial of broken.trials) {
      const calls = latestCalls(broken.calls.get(trial.id) ?? []);
      const failedAt = calls.findIndex(sandboxFailed);
      if (failedAt < 0) {
        assert.notEqual(trial.outcome?.failureBucket, "sandbox", `${trial.id} met no sandbox failure`);
        continue;
      }
      assert.equal(trial.status, "errored", `${trial.id} met the broken sandbox and is not finished`);
      assert.equal(trial.outcome?.failureBucket, "sandbox", trial.outcome?.errorMessage ?? "");
      assert.ok(
        trial.outcome?.errorMessage?.includes(SETUP_ERROR),
        `the error names bwrap's own message: ${trial.outcome?.errorMessage}`,
      );
      // The trajectory ended at the failed call: no model call saw its observation.
      assert.equal(failedAt, calls.length - 1, `${trial.id}: nothing runs after the sandbox failed`);
    }
    assert.equal(first.counts.errored, metFailure.length, "every errored trial is one that met the broken sandbox");
    // Mid-run: sandboxed calls before the break ran, and their trials' observations were real.
    const worked = [...broken.calls.values()]
      .flat()
      .filter((c) => c.role === "tool" && SANDBOXED_TOOLS.has(String(c.note?.tool)) && !sandboxFailed(c));
    assert.ok(worked.length > 0, "sandboxed calls before the break ran");

    assert.equal(broken.sandboxCheck.status, "fail", broken.sandboxCheck.detail);
    assert.ok(broken.sandboxCheck.cells.length > 0, "the sandbox check names the cells affected");
    assert.match(broken.sandboxCheck.detail, new RegExp(`^${metFailure.length} trial\\(s\\) errored in the sandbox`));

    // With a working sandbox, the next run retries the errored trials and runs those left pending.
    const second = await withBwrap(undefined, () =>
      runStudy({ specPath: spec.specPath, outDir: spec.outDir, env: {} }),
    );
    assert.equal(
      second.summary.attempted,
      first.counts.errored + first.counts.pending,
      "the next run runs the sandbox-errored and the pending trials only",
    );
    assert.equal(second.counts.errored, 0);
    assert.equal(second.counts.pending, 0);
    const fixed = await stored(spec.outDir);
    for (const trial of fixed.trials) {
      const retried = metFailure.some((t) => t.id === trial.id);
      assert.equal(trial.executions, retried ? 2 : 1, `${trial.id}: executed again only if it errored`);
    }
    assert.equal(fixed.sandboxCheck.status, "pass", fixed.sandboxCheck.detail);
  });
});

describeNeeding(needsBubblewrap(), "the CLI on a sandbox that breaks mid-run", () => {
  test("run stops with exit 4 and says why; analyze exits 3 naming the sandbox check", { timeout: 300_000 }, () => {
    const spec = writeAgentStudy({ attempts: 1 });
    dirs.push(spec.dir);
    const bwrap = breakingBwrap(WORKING_STARTS / 2);
    const env = { ...process.env, [BWRAP_ENV]: bwrap.path };
    const run = runCli(["run", spec.specPath, "--out", spec.outDir, "--concurrency", "1"], { env });
    assert.equal(run.status, 4, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(
        `stopped: the tool sandbox failed \\(tool call \\w+: the sandbox failed before the command started \\(exit status 1\\): ${SETUP_ERROR}\\); make bubblewrap run \\(docs/TOOLS.md\\), then run the same command again`,
      ),
    );
    assert.match(run.stdout, /errored trials are retried when you run the same command again/);
    const analyze = runCli(["analyze", spec.outDir], { env });
    assert.equal(analyze.status, 3, analyze.stderr);
    assert.match(analyze.stderr, /MEASUREMENT INTEGRITY FAILED.*Failed: .*sandbox/s);
    assert.match(analyze.stdout, /fail: Tool sandbox worked/);
  });
});
