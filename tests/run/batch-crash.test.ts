/**
 * Batch mode's submissions survive a crash at any point of the create, for each provider's wire
 * format through its official SDK: a SIGKILL after the provider accepted the batch but before the
 * store recorded its id resumes by finding the batch by its submission token (one batch created,
 * polled, never paid twice); a create whose reply was lost is looked up before it is retried; a
 * create that never reached the provider is sent again, once.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ModelSpecSchema } from "../../src/contracts/spec.js";
import { createAnthropicProvider } from "../../src/models/anthropic.js";
import { createOpenAIProvider } from "../../src/models/openai.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import type { BatchSubmissionRecord } from "../../src/run/store/types.js";
import {
  BATCH_TEST_KEY,
  BATCH_TEST_KEY_ENV,
  batchSpec,
  PROVIDER_CASES,
  type ProviderCase,
  readRun,
} from "../helpers/batch-study.js";
import type { BatchMockState, MockBatch } from "../helpers/mock-batch.js";
import { type AnthropicBatchMock, startAnthropicBatchMock } from "../helpers/mock-batch-anthropic.js";
import { startOpenAIBatchMock } from "../helpers/mock-batch-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import { runCli } from "../helpers/cli.js";
import { startRun } from "../helpers/run-process.js";

const ENV = { [BATCH_TEST_KEY_ENV]: BATCH_TEST_KEY };
const ITEMS = 6;

async function submissionsOf(outDir: string): Promise<BatchSubmissionRecord[]> {
  const store = await openStore(outDir);
  try {
    const run = await store.getRun();
    return run ? await store.listSubmissions(run.id) : [];
  } finally {
    await store.close();
  }
}

/** The token a provider batch carries, read from what the mock received. */
function tokenOf(c: ProviderCase, batch: MockBatch): string | undefined {
  if (c.provider === "openai") return batch.metadata?.parallax_submission;
  if (c.provider === "google") return batch.displayName?.replace(/^parallax-/, "");
  const tokens = new Set(batch.requests.map((r) => r.customId.split("_")[1]));
  return tokens.size === 1 ? [...tokens][0] : undefined;
}

async function until(condition: () => boolean, what: string, gone: () => boolean): Promise<void> {
  while (!condition()) {
    assert.ok(!gone(), `the run ended before ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * What every crash test checks once the resumed run is done: every planned call went out in
 * exactly one batch, each trial finished once with the calls of that batch, and the submission
 * that created the batch is recorded with its id and is the batch's tag at the provider.
 */
async function assertPaidOnce(c: ProviderCase, state: BatchMockState, outDir: string): Promise<void> {
  const read = await readRun(outDir);
  assert.equal(read.trials.size, ITEMS);
  assert.ok(
    [...read.trials.values()].every((t) => t.status === "finished" && t.executions === 1),
    'expected [...read.trials.values()].every((t) => t.status === "finished" && t.executions === 1)',
  );
  assert.equal(state.creates, 1, "one batch created for these calls");
  assert.equal(state.syncCalls, 0);
  const [batch] = [...state.batches.values()];
  assert.equal(batch.requests.length, ITEMS, "calls made = calls planned");
  assert.deepEqual(
    read.batches.map((b) => [b.batchId, b.status, b.requests]),
    [[batch.id, "ended", ITEMS]],
  );
  assert.equal(read.calls.length, ITEMS);
  assert.ok(
    read.calls.every((call) => call.note?.batch_id === batch.id),
    "expected read.calls.every((call) => call.note?.batch_id === batch.id)",
  );
  const submitted = (await submissionsOf(outDir)).filter((s) => s.state === "submitted");
  assert.equal(submitted.length, 1);
  assert.equal(submitted[0].batchId, batch.id);
  assert.equal(submitted[0].requests, ITEMS);
  assert.equal(tokenOf(c, batch), submitted[0].token, "the provider's batch carries the submission's token");
}

for (const c of PROVIDER_CASES) {
  describe(`batch crash safety: ${c.provider}`, () => {
    let server: MockServer;
    let state: BatchMockState;
    before(async () => {
      ({ server, state } = await c.start());
    });
    after(async () => {
      state.release();
      await server.close();
    });

    test("SIGKILL after the provider accepted the batch, before its id was stored: the resume finds it by its token", {
      timeout: 120_000,
    }, async () => {
      state.reset();
      state.afterCreate = "stall";
      const study = batchSpec(c, server.url, { mode: "batch", items: ITEMS });
      process.env[BATCH_TEST_KEY_ENV] = BATCH_TEST_KEY;
      const child = startRun(study.specPath, study.outDir);
      let stderr = "";
      child.stderr?.on("data", (chunk) => {
        stderr += chunk;
      });
      let gone = false;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      void exited.then(() => {
        gone = true;
      });
      await until(
        () => state.creates === 1,
        `the provider made its batch: ${stderr}`,
        () => gone,
      );
      child.kill("SIGKILL");
      await exited;
      state.release();

      const lost = await submissionsOf(study.outDir);
      assert.deepEqual(
        lost.map((s) => [s.state, s.batchId, s.requests]),
        [["submitting", null, ITEMS]],
        "the submission was recorded before the create; its batch id never was",
      );
      assert.equal((await readRun(study.outDir)).batches.length, 0);
      if (c.provider === "openai") {
        const status = runCli(["status", study.outDir]);
        assert.equal(status.status, 0, status.stderr);
        assert.match(status.stdout, /batch submissions without a batch id: 1 \(looked up at the provider by token/);
        assert.match(status.stdout, new RegExp(`openai \\| subject \\| ${lost[0].token} \\| ${ITEMS} \\|`));
      }

      const resumed = await runStudy({ specPath: study.specPath, outDir: study.outDir, env: ENV });
      assert.equal(resumed.counts.finished, ITEMS);
      assert.equal(state.createRequests, 1, "the resume sent no create: it found the batch");
      assert.ok(state.lists >= 1, "it looked the batch up with the list endpoint");
      assert.equal(state.resultReads, 1, "the batch's results were read once");
      await assertPaidOnce(c, state, study.outDir);
    });

    test("a create whose reply was lost (the batch made, a 500 returned) is looked up before it is retried", async () => {
      state.reset();
      state.afterCreate = "error";
      const study = batchSpec(c, server.url, { mode: "batch", items: ITEMS });
      const run = await runStudy({ specPath: study.specPath, outDir: study.outDir, env: ENV });
      assert.equal(run.counts.finished, ITEMS);
      assert.equal(state.createRequests, 1, "the lookup found the batch: no second create");
      assert.ok(state.lists >= 1, "expected state.lists >= 1");
      await assertPaidOnce(c, state, study.outDir);
    });

    test("a create that never reached the provider (the run killed while it was under way) is sent again, once", async () => {
      state.reset();
      state.beforeCreate = "stall";
      const study = batchSpec(c, server.url, { mode: "batch", items: ITEMS });
      const abort = new AbortController();
      const running = runStudy({
        specPath: study.specPath,
        outDir: study.outDir,
        env: ENV,
        abortSignal: abort.signal,
      });
      while (state.createRequests === 0) await new Promise((r) => setTimeout(r, 10));
      abort.abort();
      const aborted = await running;
      assert.equal(aborted.counts.finished, 0);
      state.release();
      assert.equal(state.creates, 0, "the provider never made the batch");
      assert.deepEqual(
        (await submissionsOf(study.outDir)).map((s) => s.state),
        ["submitting"],
      );

      const resumed = await runStudy({ specPath: study.specPath, outDir: study.outDir, env: ENV });
      assert.equal(resumed.counts.finished, ITEMS);
      assert.equal(state.createRequests, 2, "sent again once, after the lookup found nothing");
      const states = (await submissionsOf(study.outDir)).map((s) => s.state).sort();
      assert.deepEqual(states, ["absent", "submitted"]);
      await assertPaidOnce(c, state, study.outDir);
    });
  });
}

describe("batch crash safety: a SIGKILL before the create reached OpenAI (after the file upload)", () => {
  test("the resume finds no batch for the token and sends the submission again, once", {
    timeout: 120_000,
  }, async () => {
    const mock = await startOpenAIBatchMock(BATCH_TEST_KEY);
    try {
      const c = PROVIDER_CASES[0];
      mock.state.beforeCreate = "stall";
      const study = batchSpec(c, mock.server.url, { mode: "batch", items: ITEMS });
      process.env[BATCH_TEST_KEY_ENV] = BATCH_TEST_KEY;
      const child = startRun(study.specPath, study.outDir);
      let gone = false;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      void exited.then(() => {
        gone = true;
      });
      await until(
        () => mock.state.createRequests === 1,
        "its create request arrived",
        () => gone,
      );
      child.kill("SIGKILL");
      await exited;
      mock.state.release();
      const [lost] = await submissionsOf(study.outDir);
      assert.equal(lost.state, "submitting");
      assert.deepEqual(mock.fileNames, [`parallax-${lost.token}.jsonl`], "the input file carries the token");

      const resumed = await runStudy({ specPath: study.specPath, outDir: study.outDir, env: ENV });
      assert.equal(resumed.counts.finished, ITEMS);
      assert.equal(mock.state.createRequests, 2);
      const submissions = await submissionsOf(study.outDir);
      assert.deepEqual(submissions.find((s) => s.token === lost.token)?.state, "absent");
      const sent = submissions.find((s) => s.state === "submitted")!;
      assert.deepEqual(mock.fileNames, [`parallax-${lost.token}.jsonl`, `parallax-${sent.token}.jsonl`]);
      await assertPaidOnce(c, mock.state, study.outDir);
    } finally {
      mock.state.release();
      await mock.server.close();
    }
  });
});

describe("batch crash safety: the Anthropic lookup (no metadata: custom ids carry the token)", () => {
  let mock: AnthropicBatchMock;
  before(async () => {
    mock = await startAnthropicBatchMock(BATCH_TEST_KEY);
  });
  after(async () => {
    mock.state.release();
    await mock.server.close();
  });

  function api() {
    const spec = ModelSpecSchema.parse({
      id: "subject",
      provider: "anthropic",
      model: "claude-haiku-4-5",
      base_url: mock.server.url,
      api_key_env: BATCH_TEST_KEY_ENV,
    });
    return createAnthropicProvider(spec, ENV).batch!;
  }

  const entries = (n: number, prefix: string) =>
    Array.from({ length: n }, (_, i) => ({
      customId: `px${prefix}${i}`,
      request: {
        model: "claude-haiku-4-5",
        messages: [{ role: "user" as const, content: `${prefix} question ${i}` }],
        params: { maxTokens: 16 },
      },
    }));

  const nothingRecorded = async () => new Set<string>();

  test("a running batch of the same size leaves the lookup undecided; once it ended, its results decide", async () => {
    mock.state.reset();
    mock.state.hold = true;
    const batchApi = api();
    const since = Date.now();
    const ours = entries(3, "a");
    const batchId = await batchApi.submit("claude-haiku-4-5", ours, undefined, "00aa11bb22cc33dd");
    // Batches someone else made with the same key (no token in their custom ids): one of the same size.
    await batchApi.submit("claude-haiku-4-5", entries(3, "b"));
    await batchApi.submit("claude-haiku-4-5", entries(2, "c"));
    const lookup = { model: "claude-haiku-4-5", requests: 3, since, recorded: nothingRecorded };
    assert.deepEqual(await batchApi.find!("00aa11bb22cc33dd", lookup), { state: "undecided" });
    assert.equal(mock.state.resultReads, 0, "a running batch has no results to read");

    mock.state.hold = false;
    assert.deepEqual(await batchApi.find!("00aa11bb22cc33dd", lookup), { state: "found", batchId });
    // Read: the foreign batch of the same size (newest, first line only) and ours; never the 2-request one.
    assert.equal(mock.state.resultReads, 2);
    const outcomes = await batchApi.results(batchId);
    assert.equal(mock.state.resultReads, 2, "the lookup's read is handed to results()");
    assert.deepEqual([...outcomes.keys()].sort(), ours.map((e) => e.customId).sort(), "our own custom ids");
    assert.ok(
      [...outcomes.values()].every((o) => o.kind === "response"),
      'expected [...outcomes.values()].every((o) => o.kind === "response")',
    );

    assert.deepEqual(await batchApi.find!("ffffffffffffffff", lookup), { state: "absent" }, "another token");
    const recorded = async (ids: readonly string[]) => new Set(ids.filter((id) => id === batchId));
    assert.deepEqual(
      await batchApi.find!("00aa11bb22cc33dd", { ...lookup, recorded }),
      { state: "absent" },
      "a batch the store holds is not the lost one",
    );
    const later = { ...lookup, since: Date.now() + 3_600_000 };
    assert.deepEqual(await batchApi.find!("00aa11bb22cc33dd", later), { state: "absent" }, "older than the submission");
  });
});

describe("batch crash safety: the OpenAI lookup (batch metadata, the cursor list)", () => {
  test("finds the token's batch on a later page; stops a page after the submission's time", async () => {
    const mock = await startOpenAIBatchMock(BATCH_TEST_KEY);
    try {
      const spec = ModelSpecSchema.parse({
        id: "subject",
        provider: "openai",
        model: "gpt-4o-mini",
        base_url: `${mock.server.url}/v1`,
        api_key_env: BATCH_TEST_KEY_ENV,
      });
      const batchApi = createOpenAIProvider(spec, ENV).batch!;
      mock.state.hold = true; // all still running: the lookup reads only the list
      const since = Date.now();
      const request = (i: number) => ({
        customId: `px${i}`,
        request: { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: `question ${i}` }], params: {} },
      });
      const ours = await batchApi.submit("gpt-4o-mini", [request(0)], undefined, "0123456789abcdef");
      // 120 newer batches of other clients push ours to the second page of 100.
      for (let i = 0; i < 120; i++) {
        mock.state.create("batch_", [{ customId: `theirs${i}`, prompt: "q", promptTokens: 1 }], { metadata: {} });
      }
      const lookup = { model: "gpt-4o-mini", requests: 1, since, recorded: async () => new Set<string>() };
      assert.deepEqual(await batchApi.find!("0123456789abcdef", lookup), { state: "found", batchId: ours });
      assert.equal(mock.state.lists, 2, "two pages read");
      assert.deepEqual(await batchApi.find!("fedcba9876543210", lookup), { state: "absent" });
      mock.state.lists = 0;
      const later = { ...lookup, since: Date.now() + 3_600_000 };
      assert.deepEqual(await batchApi.find!("fedcba9876543210", later), { state: "absent" });
      assert.equal(mock.state.lists, 1, "a page of batches older than the submission ends the search");
    } finally {
      await mock.server.close();
    }
  });
});
