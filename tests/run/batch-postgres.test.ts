/**
 * Batch mode on a PostgreSQL store: a run aborted after its batch is recorded (as Ctrl-C twice,
 * or a dead worker) is finished by a `parallax worker` with only the store's URL, which polls the
 * recorded batch instead of submitting it again. Skipped without PARALLAX_TEST_PG_URL.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runStudy } from "../../src/run/execute/run-study.js";
import { runWorker } from "../../src/run/execute/run-worker.js";
import { openStore } from "../../src/run/store/open.js";
import { BATCH_TEST_KEY, BATCH_TEST_KEY_ENV, batchSpec, PROVIDER_CASES } from "../helpers/batch-study.js";
import { checkSubmissions } from "../helpers/batch-submissions.js";
import { dropTestSchemas, PG_URL, skipWithoutPostgres, testStoreUrl } from "../helpers/postgres-run.js";

const skip = skipWithoutPostgres;
// One schema for the whole file (dropped after it).
const url = PG_URL ? testStoreUrl("parallax_batch") : "";
const storeUrl = () => url;
const ENV = { [BATCH_TEST_KEY_ENV]: BATCH_TEST_KEY };

after(() => dropTestSchemas());

test("a worker finishes an aborted batch-mode run by polling its recorded batch", {
  skip,
  timeout: 120_000,
}, async () => {
  const c = PROVIDER_CASES[1];
  const { server, state } = await c.start();
  try {
    state.hold = true;
    const { specPath, outDir } = batchSpec(c, server.url, { mode: "batch", items: 6 });
    const abort = new AbortController();
    const running = runStudy({ specPath, outDir, store: storeUrl(), env: ENV, abortSignal: abort.signal });
    const watcher = await openStore(storeUrl());
    try {
      for (;;) {
        const run = await watcher.getRun();
        // Every trial's call is in a recorded batch (PostgreSQL may be slow enough to split them in two).
        const batches = run ? await watcher.listBatches(run.id) : [];
        if (batches.reduce((n, b) => n + b.requests, 0) === 6) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await watcher.close();
    }
    abort.abort();
    const aborted = await running;
    assert.equal(aborted.counts.finished, 0);
    assert.equal(aborted.summary.abandoned, 6);
    const submitted = state.creates;
    assert.ok(submitted >= 1, "expected submitted >= 1");

    state.hold = false;
    const worker = await runWorker({ store: storeUrl(), env: ENV, lease: { leaseMs: 5_000 } });
    assert.equal(worker.counts.finished, 6);
    assert.equal(state.creates, submitted, "the worker polled the recorded batches");
    assert.equal(state.resultReads, submitted, "each batch's results read once");
    const store = await openStore(storeUrl());
    try {
      const run = (await store.getRun())!;
      const batches = await store.listBatches(run.id);
      assert.equal(batches.length, submitted);
      assert.ok(
        batches.every((b) => b.status === "ended"),
        'expected batches.every((b) => b.status === "ended")',
      );
      const calls = await store.listCalls(run.id);
      assert.equal(calls.length, 6);
      const ids = new Set(batches.map((b) => b.batchId));
      assert.ok(
        calls.every((call) => ids.has(call.note?.batch_id as string)),
        "expected calls.every((call) => ids.has(call.note?.batch_id as string))",
      );
    } finally {
      await store.close();
    }
  } finally {
    await server.close();
  }
});

test("batch submissions on PostgreSQL: recorded before the create, then the batch id; absent ones uncounted", {
  skip,
}, async () => {
  const store = await openStore(PG_URL ? testStoreUrl("parallax_submissions") : "");
  try {
    await checkSubmissions(store);
  } finally {
    await store.close();
  }
});

test("a worker finds by its token a batch the provider accepted but the aborted run never recorded", {
  skip,
  timeout: 120_000,
}, async () => {
  const c = PROVIDER_CASES[0];
  const { server, state } = await c.start();
  const url = PG_URL ? testStoreUrl("parallax_batch_lost") : "";
  try {
    state.afterCreate = "stall";
    const { specPath, outDir } = batchSpec(c, server.url, { mode: "batch", items: 6 });
    const abort = new AbortController();
    const running = runStudy({ specPath, outDir, store: url, env: ENV, abortSignal: abort.signal });
    while (state.creates === 0) await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    const aborted = await running;
    assert.equal(aborted.counts.finished, 0);
    state.release();

    const worker = await runWorker({ store: url, env: ENV, lease: { leaseMs: 5_000 } });
    assert.equal(worker.counts.finished, 6);
    assert.equal(state.createRequests, 1, "found by its token: never created again");
    assert.equal(state.creates, 1);
    const store = await openStore(url);
    try {
      const run = (await store.getRun())!;
      const [submission, ...more] = await store.listSubmissions(run.id);
      assert.equal(more.length, 0);
      const [batch] = [...state.batches.values()];
      assert.deepEqual([submission.state, submission.batchId], ["submitted", batch.id]);
      assert.equal(batch.metadata?.parallax_submission, submission.token);
      const calls = await store.listCalls(run.id);
      assert.equal(calls.length, 6);
      assert.ok(
        calls.every((call) => call.note?.batch_id === batch.id),
        "expected calls.every((call) => call.note?.batch_id === batch.id)",
      );
    } finally {
      await store.close();
    }
  } finally {
    state.release();
    await server.close();
  }
});
