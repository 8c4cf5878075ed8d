/**
 * The batch collector alone, on a real SQLite store, with a scripted batch API: a batch never
 * exceeds the provider's own limit (ScaffoldSafety App. J: Anthropic batches of at most 10K), and
 * a failure to submit fails the waiting calls with the classified error.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { BatchEntry, GenerateRequest, ProviderBatchApi, RawBatchOutcome } from "../../src/contracts/provider.js";
import { ProviderError } from "../../src/core/errors.js";
import { BatchCollector } from "../../src/run/execute/batch/collector.js";
import { batchCustomId } from "../../src/run/execute/batch/custom-id.js";
import { openStore } from "../../src/run/store/open.js";
import type { TrialStore } from "../../src/run/store/types.js";
import { makeRun } from "../store/store-suite.js";

/** A batch API that ends every batch at its first poll, answering each request with its prompt. */
function scriptedApi(maxRequests: number, submitError?: unknown) {
  const submitted: BatchEntry[][] = [];
  const api: ProviderBatchApi = {
    maxRequests,
    classify: (error) => error,
    async submit(_model, entries) {
      if (submitError) throw submitError;
      submitted.push([...entries]);
      return `b${submitted.length}`;
    },
    status: async () => ({ state: "ended", providerStatus: "completed" }),
    async results(batchId) {
      const entries = submitted[Number(batchId.slice(1)) - 1];
      return new Map<string, RawBatchOutcome>(
        entries.map((e) => [e.customId, { kind: "response", body: e.request.messages[0].content }]),
      );
    },
    decode: (outcome) =>
      outcome.kind === "response"
        ? {
            kind: "result",
            result: {
              text: String(outcome.body),
              usage: { inputTokens: 1, outputTokens: 1 },
              paramsUsed: {},
              droppedParams: [],
            },
          }
        : { kind: "error", error: new Error("unexpected") },
  };
  return { api, submitted };
}

async function withStore(body: (store: TrialStore) => Promise<void>): Promise<void> {
  const store = await openStore(mkdtempSync(join(tmpdir(), "parallax-collector-")));
  try {
    await store.saveRun(makeRun("r"));
    await body(store);
  } finally {
    await store.close();
  }
}

const settings = { maxRequests: 5, flushAfterMs: 10, pollInitialMs: 1, pollMaxMs: 2, maxRetries: 1 };
const request = (i: number): GenerateRequest => ({
  model: "m",
  messages: [{ role: "user", content: `question ${i}` }],
  params: {},
  callId: `t${i}:1:1`,
});

test("a batch holds at most the provider's own limit", () =>
  withStore(async (store) => {
    const { api, submitted } = scriptedApi(2);
    const collector = new BatchCollector({ api, store, runId: "r", provider: "p", modelId: "m", settings });
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => collector.generate(request(i))));
    await collector.close();
    assert.deepEqual(
      results.map((r) => r.text),
      [0, 1, 2, 3, 4].map((i) => `question ${i}`),
    );
    assert.deepEqual(
      submitted.map((b) => b.length),
      [2, 2, 1],
    );
    assert.deepEqual(
      results.map((r) => r.batchId),
      ["b1", "b1", "b2", "b2", "b3"],
    );
    assert.equal((await store.listBatches("r")).length, 3);
  }));

test("a submission that fails for good fails every waiting call with its error, and records nothing", () =>
  withStore(async (store) => {
    const denied = new ProviderError("p: HTTP 401: invalid key", "auth", { retryable: false });
    const { api } = scriptedApi(10, denied);
    const collector = new BatchCollector({ api, store, runId: "r", provider: "p", modelId: "m", settings });
    const settled = await Promise.allSettled([0, 1, 2].map((i) => collector.generate(request(i))));
    await collector.close();
    assert.ok(
      settled.every((s) => s.status === "rejected" && s.reason === denied),
      'expected settled.every((s) => s.status === "rejected" && s.reason === denied)',
    );
    assert.deepEqual(await store.listBatches("r"), []);
    // Refused: no batch exists, so the submission is absent (not left for a resume to look up).
    assert.deepEqual(
      (await store.listSubmissions("r")).map((s) => [s.state, s.requests]),
      [["absent", 3]],
    );
  }));

test("a create that keeps failing with a transient error stays submitting: its last reply may have been lost", () =>
  withStore(async (store) => {
    const unavailable = new ProviderError("p: HTTP 503", "provider_error", { retryable: true });
    const { api } = scriptedApi(10, unavailable);
    let lookups = 0;
    api.find = async () => {
      lookups++;
      return { state: "absent" };
    };
    const collector = new BatchCollector({ api, store, runId: "r", provider: "p", modelId: "m", settings });
    const settled = await Promise.allSettled([0, 1].map((i) => collector.generate(request(i))));
    await collector.close();
    assert.ok(
      settled.every((s) => s.status === "rejected" && s.reason === unavailable),
      'expected settled.every((s) => s.status === "rejected" && s.reason === unavailable)',
    );
    assert.equal(lookups, settings.maxRetries, "looked up before each retry");
    const [submission] = await store.listSubmissions("r");
    assert.equal(submission.state, "submitting");
    const ids = [0, 1].map((i) => batchCustomId(request(i)));
    const requests = await store.batchRequests("r", ids);
    assert.deepEqual(
      ids.map((id) => [requests.get(id)?.state, requests.get(id)?.token]),
      ids.map(() => ["submitting", submission.token]),
    );
  }));
