/**
 * Workers die with their run: after a SIGKILL of `run --store postgres://... --workers 2`, the
 * worker it started stops within seconds (its IPC channel to the run closed), giving its leases
 * back; and a new `run` does not take over the dead run's lock while a worker of the run is still
 * at work on this host (live heartbeat, live process), only once it has stopped.
 * Skipped without PARALLAX_TEST_PG_URL (`node scripts/test.mjs --e2e postgres` starts a server).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { processAlive } from "../../src/core/stale.js";
import { LOCK_FILE } from "../../src/run/execute/study-lock.js";
import { startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import {
  type CliRun,
  dropTestSchemas,
  PG_URL,
  queryStore,
  skipWithoutPostgres,
  startCli,
  testStoreUrl,
} from "../helpers/postgres-run.js";
import { after, before, describeNeeding, test } from "../helpers/prerequisites.js";
import { writeOpenAIMockStudy } from "../helpers/study.js";

const KEY = "sk-orphan-test-1234567890abcdef";
const env = { ...process.env, PARALLAX_ORPHAN_TEST_KEY: KEY };
/** How long the workers may take to stop once their run is killed. */
const ORPHAN_BOUND_MS = 10_000;

let mock: MockServer;
/** Every process this file started, killed at the end if one is still alive (a failed test). */
const started = new Set<number>();
before(async () => {
  if (PG_URL) mock = await startOpenAIMock([KEY]);
});
after(async () => {
  for (const pid of started) if (processAlive(pid)) process.kill(pid, "SIGKILL");
  await mock?.close();
  await dropTestSchemas();
});

function start(args: string[]): CliRun {
  const run = startCli(args, env);
  if (run.child.pid !== undefined) started.add(run.child.pid);
  return run;
}

interface WorkerRow {
  id: string;
  pid: number;
  host: string;
  state: string;
}

async function workers(url: string): Promise<WorkerRow[]> {
  return queryStore<WorkerRow>(url, "select id, pid, host, state from workers order by started_at").catch(() => []);
}

async function until(condition: () => Promise<boolean>, what: string, boundMs: number): Promise<number> {
  const startedAt = Date.now();
  while (Date.now() - startedAt < boundMs) {
    if (await condition()) return Date.now() - startedAt;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`not within ${boundMs} ms: ${what}`);
}

describeNeeding(skipWithoutPostgres, "workers and the lock after their run is killed", () => {
  // A slow provider (400 ms a call): 300 trials keep two workers busy for well over a minute.
  const url = PG_URL ? testStoreUrl("parallax_orphan") : "";
  let study: { specPath: string; outDir: string };
  let runPid = 0;
  before(() => {
    study = writeOpenAIMockStudy({
      baseUrl: mock.url,
      keyEnv: "PARALLAX_ORPHAN_TEST_KEY",
      items: 300,
      attempts: 1,
      concurrency: 4,
    });
  });

  test("a SIGKILL of run --workers 2 ends its worker within seconds, its leases given back", async (t) => {
    mock.delayMs = 400;
    const args = ["--store", url, "--workers", "2", "--lease-seconds", "3"];
    const run = start(["run", study.specPath, "--out", study.outDir, ...args]);
    runPid = run.child.pid!;
    const exited = new Promise<void>((resolve) => run.child.once("exit", () => resolve()));
    await until(
      async () => (await workers(url)).filter((w) => w.state === "running").length === 2,
      "the run and its worker registered",
      60_000,
    );
    const children = (await workers(url)).filter((w) => w.pid !== runPid);
    assert.equal(children.length, 1, "one worker process beside the run");
    assert.equal(children[0].host, hostname());
    const [child] = children;
    started.add(child.pid);
    // Both are working: trials are claimed and calls are being made.
    await until(async () => mock.requests.length >= 8, "calls under way", 30_000);
    run.child.kill("SIGKILL");
    await exited;
    const tookMs = await until(async () => !processAlive(child.pid), "the orphaned worker exited", ORPHAN_BOUND_MS);
    t.diagnostic(`the worker exited ${tookMs} ms after its run was killed`);
    const [row] = (await workers(url)).filter((w) => w.id === child.id);
    assert.equal(row.state, "stopped", "the worker stopped cleanly: it recorded itself stopped");
    const held = await queryStore<{ n: string }>(
      url,
      `select count(*) as n from trials where lease_owner = '${child.id}' and status <> 'finished'`,
    );
    assert.equal(Number(held[0].n), 0, "the worker gave its leases back");
    const requestsAfter = mock.requests.length;
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(mock.requests.length, requestsAfter, "no call is made once the run and its worker are gone");
  });

  test("the dead run's lock is not taken over while a worker of the run still works here", async () => {
    const lockPath = join(study.outDir, LOCK_FILE);
    assert.ok(existsSync(lockPath), "the killed run left its lock");
    const lock = readFileSync(lockPath, "utf8");
    assert.equal(JSON.parse(lock).pid, runPid);
    // A worker with no run to die with (started by hand) keeps working on the run.
    const worker = start(["worker", url, "--lease-seconds", "3"]);
    const workerPid = worker.child.pid!;
    await until(
      async () => (await workers(url)).some((w) => w.pid === workerPid && w.state === "running"),
      "the worker registered",
      60_000,
    );
    const refused = await start(["run", study.specPath, "--out", study.outDir, "--store", url]).done;
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(`its run \\(pid ${runPid}\\) is gone, but a worker of it is still at work here \\(pid ${workerPid}, `),
    );
    assert.equal(readFileSync(lockPath, "utf8"), lock, "the lock is left as it was");

    // Once the worker stopped, the run takes the lock over and finishes the study.
    worker.child.kill("SIGINT");
    await worker.done;
    mock.delayMs = 0;
    const resumed = await start(["run", study.specPath, "--out", study.outDir, "--store", url]).done;
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stderr, new RegExp(`took over a stale lock .*pid ${runPid}`));
    const [counts] = await queryStore<{ finished: string }>(
      url,
      "select count(*) as finished from trials where status = 'finished'",
    );
    assert.equal(Number(counts.finished), 300);
    assert.equal(existsSync(lockPath), false, "the resumed run released the lock");
  });
});
