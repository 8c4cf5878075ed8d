/**
 * Scale-out on a real PostgreSQL (issue 16): trials claimed under leases (FOR UPDATE SKIP
 * LOCKED), so N workers execute every trial exactly once (counted at the mock provider: calls
 * made = calls planned); a SIGKILLed worker's trials are taken over after its leases expire; a
 * worker that lost a lease never completes the trial; `status` shows the workers and leases.
 * Skipped without PARALLAX_TEST_PG_URL (npm test sets it when PostgreSQL is installed).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { TrialOutcome } from "../../src/contracts/trial.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialStore } from "../../src/run/store/types.js";
import { runCli } from "../helpers/cli.js";
import { startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import { writeOpenAIMockStudy } from "../helpers/study.js";
import {
  dropTestSchemas,
  PG_URL,
  queryStore,
  skipWithoutPostgres,
  startCli,
  testStoreUrl,
} from "../helpers/postgres-run.js";
import { after, before, describeNeeding, test } from "../helpers/prerequisites.js";

const KEY = "sk-workers-test-1234567890abcdef";
const skip = skipWithoutPostgres;
const storeUrl = () => testStoreUrl("parallax_workers");
const query = queryStore;

let mock: MockServer;
before(async () => {
  if (PG_URL) mock = await startOpenAIMock([KEY]);
});
after(async () => {
  await mock?.close();
  await dropTestSchemas();
});

/** A study of `items` x `attempts` one-call trials (direct scaffold, MC) on the OpenAI mock. */
function openaiStudy(items: number, attempts: number, concurrency: number) {
  return writeOpenAIMockStudy({ baseUrl: mock.url, keyEnv: "PARALLAX_WORKERS_TEST_KEY", items, attempts, concurrency });
}

const env = { ...process.env, PARALLAX_WORKERS_TEST_KEY: KEY };

function chatRequests(): number {
  return mock.requests.filter((r) => r.path.endsWith("/chat/completions")).length;
}

function start(args: string[]) {
  return startCli(args, env);
}

function outcome(): TrialOutcome {
  return {
    status: "finished",
    finalAnswer: "A",
    parsedAnswer: "A",
    parseStatus: "ok",
    score: 1,
    scorer: "mc_last_answer@1",
    failureBucket: null,
    errorMessage: null,
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0,
    latencyMs: 1,
    droppedParams: [],
    simulated: false,
  } as TrialOutcome;
}

describeNeeding(skip, "leases on PostgreSQL", () => {
  let url = "";
  let store: TrialStore;
  let runId = "";
  before(async () => {
    // A recorded run of 6 trials, set back to pending below.
    const { specPath, outDir } = openaiStudy(6, 1, 2);
    url = storeUrl();
    const recorded = await start(["run", specPath, "--out", outDir, "--store", url]).done;
    assert.equal(recorded.status, 0, recorded.stderr);
    store = await openStore(url);
    runId = (await store.getRun())!.id;
    // Back to pending: these tests drive the leases by hand.
    await query(
      url,
      "update trials set status = 'pending', executions = 0, lease_owner = null, lease_expires_at = null",
    );
    await query(url, "delete from calls");
  });
  after(async () => store?.close());

  test("two workers claim disjoint trials; an expired lease is claimed again; a lost lease cannot complete", async () => {
    const erroredBefore = new Date().toISOString();
    const a = await store.claimTrials(runId, "worker-a", 4, { leaseMs: 60_000, erroredBefore });
    const b = await store.claimTrials(runId, "worker-b", 4, { leaseMs: 300, erroredBefore });
    assert.equal(a.length, 4);
    assert.equal(b.length, 2, "only the trials a did not claim are left");
    assert.equal(new Set([...a, ...b].map((t) => t.id)).size, 6);
    assert.deepEqual(await store.claimTrials(runId, "worker-c", 4, { leaseMs: 60_000, erroredBefore }), []);

    await new Promise((r) => setTimeout(r, 500)); // b's leases run out
    const summary = await store.leaseSummary(runId);
    assert.equal(summary.held, 4);
    assert.equal(summary.expired, 2);
    const c = await store.claimTrials(runId, "worker-c", 4, { leaseMs: 60_000, erroredBefore });
    assert.deepEqual(
      c.map((t) => t.id),
      b.map((t) => t.id),
      "c takes over b's expired trials",
    );
    assert.deepEqual(await store.renewLeases("worker-b", [b[0].id], 60_000), [], "b no longer holds them");
    const [lost] = await store.completeTrials([
      { trialId: b[0].id, outcome: outcome(), calls: [], leaseOwner: "worker-b" },
    ]);
    assert.equal(lost, false, "a worker that lost the lease does not complete the trial");
    const [won] = await store.completeTrials([
      { trialId: b[0].id, outcome: outcome(), calls: [], leaseOwner: "worker-c" },
    ]);
    assert.equal(won, true);

    await store.releaseLeases("worker-a", [a[0].id]);
    const d = await store.claimTrials(runId, "worker-d", 4, { leaseMs: 60_000, erroredBefore });
    assert.deepEqual(
      d.map((t) => t.id),
      [a[0].id],
      "a released trial is claimable at once",
    );
  });

  test("an errored trial is retried by the next pass, not by this one", async () => {
    const [trial] = await query<{ id: string }>(
      url,
      "select id from trials where status <> 'finished' order by id limit 1",
    );
    await query(
      url,
      `update trials set status = 'errored', lease_owner = null, lease_expires_at = null, updated_at = '2026-01-01T00:00:00.000Z' where id = '${trial.id}'`,
    );
    await query(url, `update trials set lease_owner = 'someone', lease_expires_at = 9e15 where id <> '${trial.id}'`);
    const thisPass = await store.claimTrials(runId, "w", 10, {
      leaseMs: 1_000,
      erroredBefore: "2025-12-31T00:00:00.000Z",
    });
    assert.deepEqual(thisPass, [], "errored after this pass began: not retried in it");
    const nextPass = await store.claimTrials(runId, "w", 10, {
      leaseMs: 1_000,
      erroredBefore: new Date().toISOString(),
    });
    assert.deepEqual(
      nextPass.map((t) => t.id),
      [trial.id],
    );
  });
});

describeNeeding(skip, "several workers on one run", () => {
  test("run --workers 4 executes 2,000 trials exactly once: calls made = calls planned", async () => {
    const { specPath, outDir } = openaiStudy(1_000, 2, 16);
    const url = storeUrl();
    const before = chatRequests();
    const { done } = start(["run", specPath, "--out", outDir, "--store", url, "--workers", "4"]);
    const result = await done;
    const errors = await query<{ bucket: string; message: string; n: string }>(
      url,
      "select failure_bucket as bucket, left(error_message, 200) as message, count(*) as n from trials where status = 'errored' group by 1, 2",
    );
    assert.equal(result.status, 0, `${JSON.stringify(errors)}\n${result.stderr.replace(/progress:.*\n/g, "")}`);
    const made = chatRequests() - before;
    const [counts] = await query<{ finished: string; once: string; calls: string; workers: string }>(
      url,
      `select (select count(*) from trials where status = 'finished') as finished,
              (select count(*) from trials where executions = 1) as once,
              (select count(*) from calls) as calls,
              (select count(distinct id) from workers) as workers`,
    );
    assert.equal(Number(counts.finished), 2_000);
    assert.equal(Number(counts.once), 2_000, "every trial executed once");
    assert.equal(Number(counts.calls), 2_000, "one stored call per trial");
    assert.equal(made, 2_000, "the provider was called once per planned call");
    assert.equal(Number(counts.workers), 4);
    const status = runCli(["status", url], { env });
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /workers: id \| host \| pid/);
    assert.match(status.stdout, /leases: 0 held/);
    assert.equal((status.stdout.match(/ \| stopped \| /g) ?? []).length, 4, status.stdout);
  });

  test("a SIGKILLed worker's trials are taken over after its leases expire, and stored once", async (t) => {
    const { specPath, outDir } = openaiStudy(400, 1, 4);
    const url = storeUrl();
    const before = chatRequests();
    // The first worker records the run and is killed mid-run, holding leases of 2 s.
    const first = start(["run", specPath, "--out", outDir, "--store", url, "--lease-seconds", "2"]);
    const exited = new Promise<void>((resolve) => first.child.once("exit", () => resolve()));
    let finished = 0;
    for (let polls = 0; polls < 2_000 && finished < 100; polls++) {
      await new Promise((r) => setTimeout(r, 25));
      finished = await query<{ n: string }>(url, "select count(*) as n from trials where status = 'finished'")
        .then((rows) => Number(rows[0].n))
        .catch(() => 0);
    }
    first.child.kill("SIGKILL");
    await exited;
    const atKill = await query<{ held: string }>(
      url,
      "select count(*) as held from trials where status <> 'finished' and lease_owner is not null",
    );
    const held = Number(atKill[0].held);
    assert.ok(finished >= 100 && finished < 400, `killed mid-run (finished ${finished})`);

    const second = start(["worker", url, "--lease-seconds", "2"]);
    const third = start(["worker", url, "--lease-seconds", "2"]);
    const results = await Promise.all([second.done, third.done]);
    const errored = await query<{ bucket: string; message: string }>(
      url,
      "select failure_bucket as bucket, left(error_message, 300) as message from trials where status = 'errored'",
    );
    for (const r of results) assert.equal(r.status, 0, `${r.stderr}\nerrored: ${JSON.stringify(errored)}`);
    const [counts] = await query<{ finished: string; once: string; calls: string }>(
      url,
      `select (select count(*) from trials where status = 'finished') as finished,
              (select count(*) from trials where executions = 1) as once,
              (select count(*) from calls) as calls`,
    );
    assert.equal(Number(counts.finished), 400, "nothing lost");
    assert.equal(Number(counts.once), 400, "nothing stored twice");
    assert.equal(Number(counts.calls), 400);
    const repeated = chatRequests() - before - 400;
    // Only calls in flight at the kill (at most the killed worker's concurrency, 4) are paid again.
    assert.ok(repeated >= 0 && repeated <= 4, `repeated calls: ${repeated}`);
    assert.ok(repeated <= held, `repeated ${repeated} calls, at most the ${held} leases held at the kill`);
    t.diagnostic(`leases held at the kill: ${held}; calls repeated after takeover: ${repeated}`);
  });

  test("a worker of another Parallax version, or on a SQLite store, is refused with the reason", async () => {
    const { specPath, outDir } = openaiStudy(3, 1, 2);
    const url = storeUrl();
    const run = await start(["run", specPath, "--out", outDir, "--store", url]).done;
    assert.equal(run.status, 0, run.stderr);
    await query(url, "update runs set parallax_version = '0.0.1'");
    const refused = await start(["worker", url]).done;
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /started with Parallax 0\.0\.1; this worker is .*same version/);
    const sqlite = await start(["run", specPath, "--out", join(outDir, "x"), "--workers", "2"]).done;
    assert.equal(sqlite.status, 2);
    assert.match(sqlite.stderr, /--workers needs a PostgreSQL store/);
  });
});
