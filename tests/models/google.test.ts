import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { GenerateRequest } from "../../src/contracts/provider.js";
import { type ModelSpec, ModelSpecSchema } from "../../src/contracts/spec.js";
import { InputError } from "../../src/core/errors.js";
import { MalformedResponseError } from "../../src/models/errors.js";
import { createGoogleProvider } from "../../src/models/google.js";
import type { ResilienceOptions } from "../../src/models/resilience.js";
import { fakeTime } from "../helpers/mock-clock.js";
import { providerFailure, withFakeResilience } from "../helpers/provider-test.js";
import { googleErrors, startGoogleMock } from "../helpers/mock-google.js";
import { assertNoSecret } from "../helpers/mock-secrets.js";
import { deadPort, type MockServer } from "../helpers/mock-server.js";

const ENV = {
  GEMINI_KEY_1: "AIzaTest-one-000000000000000001",
  GEMINI_KEY_2: "AIzaTest-two-000000000000000002",
  GEMINI_KEY_3: "AIzaTest-three-0000000000000003",
};
const SECRETS = Object.values(ENV);
const MODEL = "gemini-2.5-flash";

let mock: MockServer;
before(async () => {
  mock = await startGoogleMock(SECRETS);
});
after(() => mock.close());
beforeEach(() => mock.reset());

function spec(over: Record<string, unknown> = {}): ModelSpec {
  return ModelSpecSchema.parse({
    id: "gemini",
    provider: "google",
    model: MODEL,
    base_url: mock.url,
    api_key_env: "GEMINI_KEY_1",
    ...over,
  });
}

function setup(over: Record<string, unknown> = {}, resilience: ResilienceOptions = {}) {
  const time = fakeTime();
  const raw = createGoogleProvider(spec(over), ENV, { now: time.now });
  const provider = withFakeResilience(raw, time, resilience);
  return { raw, provider, time };
}

function ask(content = "hello", over: Partial<GenerateRequest> = {}): GenerateRequest {
  return { model: MODEL, messages: [{ role: "user", content }], params: {}, ...over };
}

const failure = providerFailure;

function candidateReply(candidate: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    kind: "json" as const,
    status: 200,
    body: {
      candidates: [{ index: 0, ...candidate }],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 },
      ...extra,
    },
  };
}

describe("google provider", () => {
  it("records the response's modelVersion as the model revision", async () => {
    const { provider } = setup();
    assert.equal((await provider.generate(ask("hi"))).modelRevision, MODEL);
    const version = `${MODEL}-preview-09-2025`;
    mock.enqueue(candidateReply({ content: { role: "model", parts: [{ text: "ok" }] } }, { modelVersion: version }));
    assert.equal((await provider.generate(ask("hi"))).modelRevision, version);
    mock.enqueue(candidateReply({ content: { role: "model", parts: [{ text: "ok" }] } }));
    assert.equal((await provider.generate(ask("hi"))).modelRevision, undefined);
  });

  it("calls generateContent with systemInstruction and generationConfig", async () => {
    const { provider } = setup({}, { timeoutMs: 60_000 }); // a timeout means an abortSignal in the config
    const result = await provider.generate(
      ask("hi", {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        params: { temperature: 0, topP: 0.95, topK: 40, maxTokens: 128, seed: 42, stop: ["END"] },
      }),
    );
    assert.equal(result.text, "echo: hi");
    assert.equal(result.finishReason, "stop");
    assert.equal(result.keySlot, 0);
    assert.deepEqual(result.droppedParams, []);
    const req = mock.requests[0];
    assert.equal(req.path, `/v1beta/models/${MODEL}:generateContent`);
    assert.equal(req.headers["x-goog-api-key"], ENV.GEMINI_KEY_1);
    assert.ok(!req.path.includes(ENV.GEMINI_KEY_1), "the key must not travel in the URL");
    assert.deepEqual(Object.keys(req.body).sort(), ["contents", "generationConfig", "systemInstruction"]);
    assert.deepEqual(req.body.contents, [{ role: "user", parts: [{ text: "hi" }] }]);
    assert.deepEqual(req.body.systemInstruction, { role: "user", parts: [{ text: "Be brief." }] });
    assert.deepEqual(req.body.generationConfig, {
      temperature: 0,
      topP: 0.95,
      topK: 40,
      maxOutputTokens: 128,
      seed: 42,
      stopSequences: ["END"],
    });
    assert.deepEqual(result.usage.outputTokens, 2);
  });

  it("honours drop_params, records it, and leaves it off the wire", async () => {
    const { provider } = setup({ drop_params: ["seed", "top_k"] });
    const result = await provider.generate(ask("x", { params: { temperature: 0, seed: 42, topK: 3 } }));
    assert.deepEqual(
      result.droppedParams.map((d) => [d.name, d.reason]),
      [
        ["seed", "listed in the model's drop_params"],
        ["topK", "listed in the model's drop_params"],
      ],
    );
    assert.deepEqual(mock.requests[0].body.generationConfig, { temperature: 0 });
  });

  it("maps function calls and tool results", async () => {
    mock.enqueue(
      candidateReply({
        content: { role: "model", parts: [{ functionCall: { name: "search", args: { q: "paris" } } }] },
        finishReason: "STOP",
      }),
    );
    const { provider } = setup();
    const result = await provider.generate(
      ask("q", {
        messages: [
          { role: "user", content: "capital?" },
          { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "search", arguments: '{"q":"x"}' }] },
          { role: "tool", content: "none", toolCallId: "c1" },
        ],
        tools: [{ name: "search", description: "web", parameters: { type: "object", properties: {} } }],
      }),
    );
    assert.deepEqual(result.toolCalls, [{ id: "call_0", name: "search", arguments: '{"q":"paris"}' }]);
    assert.equal(result.finishReason, "tool_calls");
    const body = mock.requests[0].body;
    assert.deepEqual(body.contents.slice(1), [
      { role: "model", parts: [{ functionCall: { id: "c1", name: "search", args: { q: "x" } } }] },
      { role: "user", parts: [{ functionResponse: { id: "c1", name: "search", response: { result: "none" } } }] },
    ]);
    assert.equal(body.tools[0].functionDeclarations[0].name, "search");
  });

  it("waits for the RetryInfo delay of a 429 RESOURCE_EXHAUSTED", async () => {
    mock.enqueue(googleErrors.exhausted("12s"));
    const { provider, time } = setup();
    await provider.generate(ask());
    assert.deepEqual(time.slept, [12_000]);
  });

  it("cools a key without RetryInfo exponentially, per key", async () => {
    mock.enqueue(googleErrors.exhausted(), googleErrors.exhausted());
    const { provider, time } = setup();
    await provider.generate(ask());
    assert.deepEqual(time.slept, [1000, 2000]); // KeyPool default cooldown 1 s, doubling
  });

  it("retries 503 UNAVAILABLE and 500 INTERNAL", async () => {
    mock.enqueue(googleErrors.unavailable(), googleErrors.internal());
    const { provider, time } = setup({}, { baseDelayMs: 100 });
    const result = await provider.generate(ask());
    assert.equal(result.text, "echo: hello");
    assert.deepEqual(time.slept, [50, 100]);
    assert.equal(mock.requests.length, 3);
  });

  it("classifies a hang as a timeout", async () => {
    mock.enqueue({ kind: "hang" });
    const { provider } = setup({}, { timeoutMs: 150, maxRetries: 0 });
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "timeout");
  });

  it("classifies a refused connection as a retryable timeout", async () => {
    const provider = createGoogleProvider(spec({ base_url: await deadPort() }), ENV);
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "timeout");
    assert.ok(error.retryable, "expected error.retryable");
  });

  it("classifies a malformed body", async () => {
    const broken = { kind: "raw" as const, status: 200, text: '{"candidates": [{"content": ' };
    mock.enqueue(broken, broken);
    const { provider } = setup();
    const error = await failure(provider.generate(ask()));
    assert.ok(error instanceof MalformedResponseError, "expected error instanceof MalformedResponseError");
    assert.equal(mock.requests.length, 2);
  });

  it("maps finishReason SAFETY and a blocked prompt to content_filter, without retrying", async () => {
    mock.enqueue(candidateReply({ content: { role: "model", parts: [] }, finishReason: "SAFETY" }));
    const { provider } = setup();
    assert.equal((await failure(provider.generate(ask()))).bucket, "content_filter");
    mock.enqueue({
      kind: "json",
      status: 200,
      body: { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 4 } },
    });
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "content_filter");
    assert.match(error.message, /PROHIBITED_CONTENT/);
    assert.equal(mock.requests.length, 2);
  });

  it("does not retry an over-long input", async () => {
    mock.enqueue(googleErrors.tooLong());
    const { provider, time } = setup();
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "context_too_long");
    assert.deepEqual(time.slept, []);
  });

  it("rotates three keys, sending a 429'd key's share to the others", async () => {
    const { provider, time } = setup({ api_key_env: ["GEMINI_KEY_1", "GEMINI_KEY_2", "GEMINI_KEY_3"] });
    mock.enqueue(googleErrors.exhausted("60s"));
    const slots = [];
    for (let i = 0; i < 4; i++) slots.push((await provider.generate(ask())).keySlot);
    // key 1: 429 -> key 2; then 3, (1 cooling) 2, 3
    assert.deepEqual(slots, [1, 2, 1, 2]);
    assert.deepEqual(
      mock.requests.map((r) => SECRETS.indexOf(r.headers["x-goog-api-key"])),
      [0, 1, 2, 1, 2],
    );
    assert.deepEqual(time.slept, [0]);
  });

  it("limits each key's requests per minute when rpm_per_key is set", async () => {
    const { provider, time } = setup({ api_key_env: ["GEMINI_KEY_1", "GEMINI_KEY_2"], options: { rpm_per_key: 1 } });
    const slots = [];
    for (let i = 0; i < 3; i++) slots.push((await provider.generate(ask())).keySlot);
    assert.deepEqual(slots, [0, 1, 0]);
    assert.deepEqual(time.slept, [60_000]); // both keys spent: wait a minute for one token
    assert.equal(mock.requests.length, 3);
  });

  it("names missing variables, and falls back to GEMINI_API_KEY / GOOGLE_API_KEY", () => {
    assert.throws(
      () => createGoogleProvider(spec({ api_key_env: ["GEMINI_KEY_1", "GEMINI_KEY_X"] }), ENV),
      (e: unknown) => e instanceof InputError && /GEMINI_KEY_X/.test(e.message),
    );
    const bare = ModelSpecSchema.parse({ id: "g", provider: "google", model: MODEL });
    assert.throws(() => createGoogleProvider(bare, {}), /GEMINI_API_KEY or GOOGLE_API_KEY/);
    assert.equal(createGoogleProvider(bare, { GOOGLE_API_KEY: "x-key" }).name, "google");
  });

  it("keeps an invalid key out of the error", async () => {
    const leaky = { GEMINI_KEY_1: "AIzaTest-invalid-key-55555555" };
    const error = await failure(createGoogleProvider(spec(), leaky).generate(ask()));
    assert.equal(error.options.status, 400);
    assert.equal(error.retryable, false);
    assert.match(error.message, /API key not valid/);
    assertNoSecret(error, Object.values(leaky));
  });
});
