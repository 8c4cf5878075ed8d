/**
 * The response cache on a real provider path (official OpenAI SDK against the local mock):
 * attempts are independent requests, and when a trial errors part-way, its earlier sub-calls
 * are served from the cache on the retry instead of being paid for again. Two model entries
 * never share a reply, even when they differ only in the variable their key is read from.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { openaiErrors, startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import { writeDemoSpec } from "../helpers/study.js";

const ENV = { PARALLAX_CACHE_TEST_KEY: "sk-cache-test-000000000000000001" };
/** A key the mock accepts and always answers with HTTP 500. */
const FAILING = { PARALLAX_CACHE_FAILING_KEY: "sk-cache-test-failing-0000000002" };
let mock: MockServer;
before(async () => {
  mock = await startOpenAIMock([...Object.values(ENV), ...Object.values(FAILING)], {
    serverErrorKeys: Object.values(FAILING),
  });
});
after(() => mock.close());

const model = () => `  - id: gpt
    provider: openai
    model: gpt-4o-mini
    base_url: ${mock.url}/v1
    api_key_env: PARALLAX_CACHE_TEST_KEY
    params: { temperature: 0, max_tokens: 64 }`;

/** A chat completion in the API's response shape. */
function completion(content: string) {
  return {
    kind: "json" as const,
    status: 200,
    body: {
      id: "chatcmpl-scripted",
      object: "chat.completion",
      created: 1_700_000_000,
      model: "gpt-4o-mini",
      choices: [
        { index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
    },
  };
}

test("attempts are separate requests, not cache hits of each other", async () => {
  mock.reset();
  const { specPath, outDir } = writeDemoSpec({ items: 2, attempts: 2, models: model(), facets: "    format: [mc]" });
  const result = await runStudy({ specPath, outDir, env: ENV });
  assert.equal(result.counts.finished, 4);
  assert.equal(mock.requests.length, 4, "two items x two attempts, each sent");
});

test("a trial that errors part-way reuses its cached sub-calls when it is retried", async () => {
  mock.reset();
  const { specPath, outDir } = writeDemoSpec({
    items: 1,
    models: model(),
    facets: "    format: [mc]\n    scaffold: [{ name: critic, rounds: 1 }]",
    execution: "  concurrency: 1\n  max_retries: 0",
  });
  // The primary answer succeeds; the critique fails for good, so the trial errors.
  mock.enqueue(completion("Answer: B"), openaiErrors.contextLength());
  const first = await runStudy({ specPath, outDir, env: ENV });
  assert.equal(first.counts.errored, 1);
  const sentFirst = mock.requests.length;
  assert.equal(sentFirst, 2);

  const second = await runStudy({ specPath, outDir, env: ENV });
  assert.equal(second.counts.finished, 1);
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const calls = (await store.listCalls(run.id)).filter((c) => c.execution === 2);
    assert.equal(calls[0].role, "answer");
    assert.equal(calls[0].cached, true, "the primary answer came from the cache");
    assert.ok(
      calls.slice(1).every((c) => !c.cached),
      "expected calls.slice(1).every((c) => !c.cached)",
    );
    assert.equal(mock.requests.length - sentFirst, calls.length - 1, "only the uncached calls were sent");
  } finally {
    await store.close();
  }
});

test("two model entries that differ only in their key env var never share a cached reply", async () => {
  mock.reset();
  const entry = (id: string, keyEnv: string) => `  - id: ${id}
    provider: openai
    model: gpt-4o-mini
    base_url: ${mock.url}/v1
    api_key_env: ${keyEnv}
    params: { temperature: 0, max_tokens: 64 }`;
  const items = 3;
  const { specPath, outDir } = writeDemoSpec({
    items,
    models: `${entry("good", "PARALLAX_CACHE_TEST_KEY")}\n${entry("failing", "PARALLAX_CACHE_FAILING_KEY")}`,
    facets: "    format: [mc]",
    execution: "  concurrency: 1\n  max_retries: 0",
  });
  const env = { ...ENV, ...FAILING };
  // The second pass retries the failing entry's errored trials, after the good entry's replies
  // (the same requests) are all in the cache.
  await runStudy({ specPath, outDir, env });
  const second = await runStudy({ specPath, outDir, env });
  assert.deepEqual(second.counts, { pending: 0, finished: items, errored: items });
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const trials = await store.listTrials(run.id);
    for (const trial of trials) {
      assert.equal(trial.status, trial.modelId === "good" ? "finished" : "errored", `${trial.modelId} ${trial.id}`);
    }
    const failingTrials = new Set(trials.filter((t) => t.modelId === "failing").map((t) => t.id));
    const failingCalls = (await store.listCalls(run.id)).filter((c) => failingTrials.has(c.trialId));
    assert.equal(failingCalls.length, 2 * items, "each failing trial called twice, once per pass");
    assert.ok(
      failingCalls.every((c) => !c.cached && c.error?.message.includes("HTTP 500")),
      "every call of the failing entry went to the provider and failed",
    );
  } finally {
    await store.close();
  }
  const failingKey = `Bearer ${FAILING.PARALLAX_CACHE_FAILING_KEY}`;
  const sentWithFailingKey = mock.requests.filter((r) => r.headers.authorization === failingKey).length;
  assert.equal(sentWithFailingKey, 2 * items, "the failing entry's calls were sent with its own key");
});
