/**
 * Crash safety: `parallax run` is killed with SIGKILL at several points; rerunning the same
 * command must end with exactly one finished trial per planned trial, none lost and none
 * duplicated (one execution and one call per direct trial).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { finishedCount, killWhenFinished, startRun } from "../helpers/run-process.js";
import { writeDemoSpec } from "../helpers/study.js";

async function runToEnd(specPath: string, outDir: string): Promise<number> {
  const child = startRun(specPath, outDir);
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? -1)));
  assert.equal(code, 0, stderr);
  return code;
}

test("SIGKILL at several points loses and duplicates nothing", { timeout: 180_000 }, async () => {
  const { specPath, outDir } = writeDemoSpec({
    items: 30,
    attempts: 2,
    models: `  - id: sim-slow
    provider: sim
    model: medium
    options: { latency_ms: 15 }
  - id: sim-slow-2
    provider: sim
    model: strong
    options: { latency_ms: 15 }`,
    execution: "  concurrency: 6",
  });
  const planned = 2 * 2 * 30 * 2;
  // Killed before any trial can finish (during start-up or planning), then at three points mid-run.
  const first = startRun(specPath, outDir);
  await new Promise((r) => setTimeout(r, 300));
  first.kill("SIGKILL");
  await new Promise((r) => first.once("exit", r));
  for (const threshold of [20, 90, 170]) {
    await killWhenFinished(startRun(specPath, outDir), outDir, threshold);
    const now = finishedCount(outDir);
    assert.ok(now < planned, `the run finished before the kill at ${threshold}; make trials slower`);
  }
  await runToEnd(specPath, outDir);

  const db = new Database(join(outDir, "parallax.db"), { readonly: true });
  try {
    const trials = db.prepare("select id, status, executions from trials").all() as {
      id: string;
      status: string;
      executions: number;
    }[];
    assert.equal(trials.length, planned, "every planned trial exists once");
    assert.ok(
      trials.every((t) => t.status === "finished"),
      "every trial finished",
    );
    assert.ok(
      trials.every((t) => t.executions === 1),
      "a killed in-flight trial leaves no completed execution behind",
    );
    const calls = db.prepare("select trial_id, count(*) as n from calls group by trial_id").all() as {
      trial_id: string;
      n: number;
    }[];
    assert.equal(calls.length, planned);
    assert.ok(
      calls.every((c) => c.n === 1),
      "exactly one call per direct trial",
    );
  } finally {
    db.close();
  }
});

test("Ctrl-C stops after the trials in flight; running again resumes", { timeout: 120_000 }, async () => {
  const { specPath, outDir } = writeDemoSpec({
    items: 40,
    models: `  - id: sim-slow
    provider: sim
    model: medium
    options: { latency_ms: 40 }`,
    execution: "  concurrency: 2",
  });
  const child = startRun(specPath, outDir);
  let stdout = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  while (finishedCount(outDir) < 10) await new Promise((r) => setTimeout(r, 20));
  child.kill("SIGINT");
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  assert.equal(code, 130, stderr);
  assert.match(stderr, /stopping: finishing trials in flight/);
  assert.match(stdout, /stopped by interrupt: run the same command again to resume/);
  const stopped = finishedCount(outDir);
  assert.ok(stopped >= 10 && stopped < 80, `finished at stop: ${stopped}`);
  await runToEnd(specPath, outDir);
  assert.equal(finishedCount(outDir), 80);
});
