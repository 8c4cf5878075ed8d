/**
 * execution.mode: batch against each provider's batch wire format (OpenAI Batch API, Anthropic
 * Message Batches, Gemini batch mode), through the official SDKs: the same scores as a
 * synchronous run on the same mock answers, the batch price, the batch id on every call; a
 * SIGKILL between submit and results resumes by polling (one creation, one read of the results);
 * stored results are never read twice; partial failures and expiry resubmit what they should.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { costUsd } from "../../src/models/pricing.js";
import { summarisePlan } from "../../src/run/plan/plan.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { prepareStudy } from "../../src/run/prepare/study.js";
import {
  BATCH_TEST_KEY,
  BATCH_TEST_KEY_ENV,
  batchSpec,
  PRICE,
  PROVIDER_CASES,
  readRun,
  recordedBatches,
} from "../helpers/batch-study.js";
import type { BatchMockState } from "../helpers/mock-batch.js";
import type { MockServer } from "../helpers/mock-server.js";
import { runCli } from "../helpers/cli.js";
import { startRun } from "../helpers/run-process.js";
import { writeDemoSpec } from "../helpers/study.js";
import Database from "better-sqlite3";
import { join } from "node:path";

const ENV = { [BATCH_TEST_KEY_ENV]: BATCH_TEST_KEY };

function scoresOf(trials: Map<string, { score: number | null; parsedAnswer: string | null }>) {
  return new Map([...trials].map(([id, t]) => [id, { score: t.score, parsedAnswer: t.parsedAnswer }]));
}

for (const c of PROVIDER_CASES) {
  describe(`batch mode: ${c.provider}`, () => {
    let server: MockServer;
    let state: BatchMockState;
    before(async () => {
      ({ server, state } = await c.start());
    });
    after(() => server.close());

    test("a batch run scores as the synchronous run, at the batch price, each call naming its batch", async () => {
      state.reset();
      const sync = batchSpec(c, server.url, { mode: "sync" });
      const syncRun = await runStudy({ specPath: sync.specPath, outDir: sync.outDir, env: ENV });
      assert.equal(syncRun.counts.finished, 8);
      assert.equal(state.syncCalls, 8);
      assert.equal(state.creates, 0);

      state.reset();
      const batch = batchSpec(c, server.url, { mode: "batch" });
      const batchRun = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
      assert.equal(batchRun.counts.finished, 8);
      assert.equal(state.syncCalls, 0, "no synchronous call in batch mode");
      assert.equal(state.creates, 1, "eight single-call trials fit one batch");
      assert.equal(state.resultReads, 1);

      const a = await readRun(sync.outDir);
      const b = await readRun(batch.outDir);
      assert.deepEqual(scoresOf(b.trials), scoresOf(a.trials), "same trial ids, same scores");
      const answered = [...b.trials.values()].filter((t) => t.parsedAnswer !== null).length;
      assert.ok(answered === 8, "every mock answer parses");
      assert.equal(b.batches.length, 1);
      assert.equal(b.batches[0].status, "ended");
      assert.equal(b.batches[0].provider, c.provider);
      const syncBySeq = new Map(a.calls.map((call) => [call.trialId, call]));
      for (const call of b.calls) {
        assert.equal(call.note?.batch_id, b.batches[0].batchId);
        const twin = syncBySeq.get(call.trialId)!;
        assert.equal(twin.note?.batch_id, undefined);
        assert.deepEqual(call.messages, twin.messages, "the same request");
        assert.equal(call.responseText, twin.responseText);
        assert.deepEqual(call.usage, twin.usage);
        assert.deepEqual(call.paramsUsed, twin.paramsUsed);
        // The batch price is half the synchronous one, computed from the call's own usage.
        const half = { input_per_mtok: PRICE.input_per_mtok / 2, output_per_mtok: PRICE.output_per_mtok / 2 };
        assert.equal(call.costUsd, costUsd(call.usage, half).usd);
        assert.equal(twin.costUsd, costUsd(twin.usage, PRICE).usd);
      }
    });

    test("SIGKILL between submit and results: the resumed run polls the recorded batch", {
      timeout: 120_000,
    }, async () => {
      state.reset();
      state.hold = true;
      const batch = batchSpec(c, server.url, { mode: "batch", items: 6 });
      process.env[BATCH_TEST_KEY_ENV] = BATCH_TEST_KEY;
      const child = startRun(batch.specPath, batch.outDir);
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      let stderr = "";
      child.stderr?.on("data", (chunk) => {
        stderr += chunk;
      });
      let gone = false;
      void exited.then(() => {
        gone = true;
      });
      while (!gone && recordedBatches(batch.outDir) === 0) await new Promise((r) => setTimeout(r, 20));
      assert.ok(!gone, `the run ended before recording its batch: ${stderr}`);
      child.kill("SIGKILL");
      await exited;
      assert.equal(state.creates, 1);
      assert.equal(state.resultReads, 0, "killed before any result was read");
      const pendingStatus = runCli(["status", batch.outDir]);
      assert.equal(pendingStatus.status, 0, pendingStatus.stderr);
      assert.match(pendingStatus.stdout, /provider batches: 1 \(1 submitted, 0 ended\)/);
      assert.match(pendingStatus.stdout, new RegExp(`${c.provider} \\| subject \\| .+ \\| submitted \\| 6 \\|`));

      state.hold = false;
      const resumed = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
      assert.equal(resumed.counts.finished, 6);
      assert.equal(state.creates, 1, "the recorded batch is polled, not resubmitted");
      assert.equal(state.resultReads, 1);
      const read = await readRun(batch.outDir);
      assert.equal(read.batches.length, 1);
      assert.ok(
        read.calls.every((call) => call.note?.batch_id === read.batches[0].batchId),
        "expected read.calls.every((call) => call.note?.batch_id === read.batches[0].batchId)",
      );
      assert.ok(
        [...read.trials.values()].every((t) => t.executions === 1),
        "expected [...read.trials.values()].every((t) => t.executions === 1)",
      );
      assert.match(runCli(["status", batch.outDir]).stdout, /provider batches: 1 \(0 submitted, 1 ended\)/);

      // Killed after the results were stored but before the trials committed (the same store
      // state, made by hand): the results come from the store, not from the provider.
      const db = new Database(join(batch.outDir, "parallax.db"));
      db.exec("delete from calls; update trials set status = 'pending', executions = 0, score = null");
      db.close();
      const again = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
      assert.equal(again.counts.finished, 6);
      assert.equal(state.creates, 1, "nothing resubmitted");
      assert.equal(state.resultReads, 1, "stored results are not read twice");
      const reread = await readRun(batch.outDir);
      assert.deepEqual(scoresOf(reread.trials), scoresOf(read.trials));
      assert.equal(reread.calls.length, 6);
    });

    test("partial failure: a retryable error is resubmitted, a lasting one errors the trial as the sync error would", async () => {
      state.reset();
      state.failures = [
        { match: "number 3 ", failure: "server", times: 1 },
        { match: "number 5 ", failure: "context", times: 1 },
      ];
      const batch = batchSpec(c, server.url, { mode: "batch", items: 6 });
      const first = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
      assert.equal(first.counts.finished, 5);
      assert.equal(first.counts.errored, 1);
      assert.equal(state.creates, 2, "the server error went into a second batch");
      const read = await readRun(batch.outDir);
      const errored = [...read.trials.values()].find((t) => t.status === "errored")!;
      assert.equal(errored.failureBucket, "context_too_long");
      const failedCall = read.calls.find((call) => call.error !== null)!;
      assert.equal(failedCall.error?.bucket, "context_too_long");
      // A resumed run retries the errored trial as its next execution, in a new batch.
      const second = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
      assert.equal(second.counts.finished, 6);
      assert.equal(state.creates, 3);
    });

    test("a request that keeps failing is resubmitted max_retries times, then errors its trial", async () => {
      state.reset();
      state.failures = [{ match: "number 2 ", failure: "server", times: 10 }];
      const batch = batchSpec(c, server.url, { mode: "batch", items: 4, maxRetries: 1 });
      const run = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
      assert.equal(run.counts.finished, 3);
      assert.equal(run.counts.errored, 1);
      assert.equal(state.creates, 2, "the first submission and one retry");
      assert.deepEqual(
        [...state.batches.values()].map((b) => b.requests.length),
        [4, 1],
      );
      const read = await readRun(batch.outDir);
      const errored = [...read.trials.values()].find((t) => t.status === "errored")!;
      assert.equal(errored.failureBucket, "provider_error");
    });

    test("an expired batch resubmits the requests it did not run", async () => {
      state.reset();
      state.expireNext = 1;
      const batch = batchSpec(c, server.url, { mode: "batch", items: 6 });
      const run = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
      assert.equal(run.counts.finished, 6);
      assert.equal(state.creates, 2);
      const [expired, second] = [...state.batches.values()];
      assert.equal(expired.requests.length, 6);
      assert.equal(second.requests.length, 3, "only the unrun half is resubmitted");
      const read = await readRun(batch.outDir);
      const byBatch = new Map<unknown, number>();
      for (const call of read.calls) byBatch.set(call.note?.batch_id, (byBatch.get(call.note?.batch_id) ?? 0) + 1);
      assert.deepEqual([...byBatch.values()].sort(), [3, 3]);
    });
  });
}

describe("batch mode: multi-call scaffolds, the plan and the shared budget", () => {
  const c = PROVIDER_CASES[0];
  let server: MockServer;
  let state: BatchMockState;
  before(async () => {
    ({ server, state } = await c.start());
  });
  after(() => server.close());

  test("a multi-call scaffold advances one round of sub-calls per batch, scoring as the sync run", async () => {
    const facets = "    format: [mc]\n    scaffold: [{ name: critic, rounds: 1 }]";
    state.reset();
    const sync = batchSpec(c, server.url, { mode: "sync", items: 5, facets });
    await runStudy({ specPath: sync.specPath, outDir: sync.outDir, env: ENV });
    state.reset();
    const batch = batchSpec(c, server.url, { mode: "batch", items: 5, facets });
    const run = await runStudy({ specPath: batch.specPath, outDir: batch.outDir, env: ENV });
    assert.equal(run.counts.finished, 5);
    const a = await readRun(sync.outDir);
    const b = await readRun(batch.outDir);
    assert.deepEqual(scoresOf(b.trials), scoresOf(a.trials));
    // Round k of every trial is batch k: batch sizes are the trials with a k-th sub-call.
    const perSeq = new Map<number, number>();
    for (const call of b.calls) perSeq.set(call.seq, (perSeq.get(call.seq) ?? 0) + 1);
    const rounds = [...perSeq.keys()].sort((x, y) => x - y).map((seq) => perSeq.get(seq)!);
    assert.ok(rounds.length >= 2, "the critic makes more than one sub-call");
    assert.deepEqual(
      [...state.batches.values()].map((x) => x.requests.length),
      rounds,
    );
    for (const call of b.calls) {
      const batchOfSeq = [...state.batches.values()][call.seq - 1];
      assert.equal(call.note?.batch_id, batchOfSeq.id);
    }
  });

  test("plan estimates the cost in both modes: half price for batch-capable providers, local models free", async () => {
    const { specPath } = batchSpec(c, server.url, { mode: "sync", items: 4 });
    const study = await prepareStudy(specPath);
    const summary = summarisePlan(study);
    const subject = summary.perModel.find((m) => m.model === "subject")!;
    assert.ok(subject.costUsd! > 0, "expected subject.costUsd! > 0");
    assert.equal(subject.batchCostUsd, subject.costUsd! / 2);
    assert.equal(summary.estimatedBatchCostUsd, summary.estimatedCostUsd / 2);
    // Log-prob cells are never batched: no discount on them.
    const mixed = batchSpec(c, server.url, {
      mode: "sync",
      items: 4,
      facets: "    format: [mc]\n    scoring_path: [free_form, logprob]",
      options: "{ completions_logprobs: true }",
    });
    const both = summarisePlan(await prepareStudy(mixed.specPath)).perModel[0];
    const onlyFree = summarisePlan(
      await prepareStudy(
        batchSpec(c, server.url, { mode: "sync", items: 4, options: "{ completions_logprobs: true }" }).specPath,
      ),
    ).perModel[0];
    const logprobCost = both.costUsd! - onlyFree.costUsd!;
    assert.ok(logprobCost > 0, "expected logprobCost > 0");
    assert.ok(
      Math.abs(both.batchCostUsd! - (onlyFree.costUsd! / 2 + logprobCost)) < 1e-12,
      "expected Math.abs(both.batchCostUsd! - (onlyFree.costUsd! / 2 + logprobCost)) < 1e-12",
    );
    const shown = runCli(["plan", specPath], { env: { ...process.env, ...ENV } });
    assert.equal(shown.status, 0, shown.stderr);
    const dollars = (n: number) => `$${n.toFixed(2)}`;
    assert.ok(
      shown.stdout.includes(`estimated cost (upper bound): ${dollars(summary.estimatedCostUsd)}`),
      "expected shown.stdout.includes(`estimated cost (upper bound): ${dollars(summary.estimatedCostUsd...",
    );
    assert.ok(
      shown.stdout.includes(
        `estimated cost in batch mode (execution.mode: batch; now sync): ${dollars(summary.estimatedBatchCostUsd)}`,
      ),
      "expected shown.stdout.includes( `estimated cost in batch mode (execution.mode: batch; now sync):...",
    );
  });

  test("log-prob scoring stays synchronous in batch mode and is paid at the synchronous price", async () => {
    state.reset();
    const study = batchSpec(c, server.url, {
      mode: "batch",
      items: 3,
      facets: "    format: [mc]\n    scoring_path: [logprob]",
      options: "{ completions_logprobs: true }",
    });
    const run = await runStudy({ specPath: study.specPath, outDir: study.outDir, env: ENV });
    assert.equal(run.counts.finished, 3);
    assert.equal(state.creates, 0, "no batch: the completions echo is not batched");
    assert.equal(state.syncCalls, 3);
    const { calls } = await readRun(study.outDir);
    assert.equal(calls.length, 3);
    for (const call of calls) {
      assert.equal(call.role, "logprob");
      assert.ok(call.usage.inputTokens > 0, "expected call.usage.inputTokens > 0");
      assert.equal(call.costUsd, costUsd(call.usage, PRICE).usd, "the synchronous price, not the batch price");
    }
  });

  test("a provider without a batch API (the simulated panel) runs synchronously in batch mode", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 4, execution: "  mode: batch" });
    const run = await runStudy({ specPath, outDir, env: {} });
    assert.equal(run.counts.finished, 8);
    const read = await readRun(outDir);
    assert.equal(read.batches.length, 0);
    assert.ok(
      read.calls.every((call) => call.note?.batch_id === undefined),
      "expected read.calls.every((call) => call.note?.batch_id === undefined)",
    );
  });

  test("a batched call reserves its place in the budget before it joins a batch: max_calls is never passed", async () => {
    state.reset();
    const items = 8;
    const maxCalls = 5;
    const study = batchSpec(c, server.url, { mode: "batch", items, budget: `  max_calls: ${maxCalls}` });
    const result = await runStudy({ specPath: study.specPath, outDir: study.outDir, env: ENV });
    const submitted = [...state.batches.values()].reduce((n, b) => n + b.requests.length, 0);
    assert.equal(submitted, maxCalls, "only the reserved calls were submitted");
    assert.equal(result.counts.finished, maxCalls);
    const { trials } = await readRun(study.outDir);
    const unfinished = [...trials.values()].filter((t) => t.status !== "finished").length;
    assert.equal(unfinished, items - maxCalls, "the refused trials stay pending for a later run");
  });
});
