import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { GenerateRequest } from "../../src/contracts/provider.js";
import { type ModelSpec, ModelSpecSchema } from "../../src/contracts/spec.js";
import { InputError } from "../../src/core/errors.js";
import { createAnthropicProvider } from "../../src/models/anthropic.js";
import { MalformedResponseError } from "../../src/models/errors.js";
import type { ResilienceOptions } from "../../src/models/resilience.js";
import { anthropicErrors, startAnthropicMock } from "../helpers/mock-anthropic.js";
import { fakeTime } from "../helpers/mock-clock.js";
import { providerFailure, withFakeResilience } from "../helpers/provider-test.js";
import { assertNoSecret } from "../helpers/mock-secrets.js";
import { deadPort, type MockServer } from "../helpers/mock-server.js";

const ENV = {
  CLAUDE_KEY_1: "sk-ant-test-one-00000000000001",
  CLAUDE_KEY_2: "sk-ant-test-two-00000000000002",
};
const SECRETS = Object.values(ENV);
const MODEL = "claude-opus-4-6";

let mock: MockServer;
before(async () => {
  mock = await startAnthropicMock(SECRETS);
});
after(() => mock.close());
beforeEach(() => mock.reset());

function spec(over: Record<string, unknown> = {}): ModelSpec {
  return ModelSpecSchema.parse({
    id: "opus",
    provider: "anthropic",
    model: MODEL,
    base_url: mock.url,
    api_key_env: "CLAUDE_KEY_1",
    ...over,
  });
}

function setup(over: Record<string, unknown> = {}, resilience: ResilienceOptions = {}) {
  const time = fakeTime();
  const raw = createAnthropicProvider(spec(over), ENV, { now: time.now });
  const provider = withFakeResilience(raw, time, resilience);
  return { raw, provider, time };
}

function ask(content = "hello", over: Partial<GenerateRequest> = {}): GenerateRequest {
  return { model: MODEL, messages: [{ role: "user", content }], params: {}, ...over };
}

const failure = providerFailure;

function messageReply(over: Record<string, unknown>) {
  return {
    kind: "json" as const,
    status: 200,
    body: {
      id: "msg_x",
      type: "message",
      role: "assistant",
      model: MODEL,
      content: [{ type: "text", text: "" }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 2 },
      ...over,
    },
  };
}

describe("anthropic provider", () => {
  it("records the dated model the response names as the model revision", async () => {
    const { provider } = setup();
    // The mock answers with the model it was asked for; a reply naming a dated snapshot is what the API sends.
    assert.equal((await provider.generate(ask("hi"))).modelRevision, MODEL);
    const dated = `${MODEL}-20260101`;
    mock.enqueue(messageReply({ model: dated, content: [{ type: "text", text: "ok" }] }));
    assert.equal((await provider.generate(ask("hi"))).modelRevision, dated);
    mock.enqueue(messageReply({ model: "", content: [{ type: "text", text: "ok" }] }));
    assert.equal((await provider.generate(ask("hi"))).modelRevision, undefined);
  });

  it("sends the system prompt top-level, max_tokens by default, the key in x-api-key", async () => {
    const { provider } = setup();
    const result = await provider.generate(
      ask("hi", {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "hi" },
        ],
        params: { temperature: 0, stop: ["END"], topK: 40 },
      }),
    );
    assert.equal(result.text, "echo: hi");
    assert.equal(result.finishReason, "stop");
    assert.equal(result.keySlot, 0);
    assert.equal(result.paramsUsed.maxTokens, 1024);
    const req = mock.requests[0];
    assert.equal(req.path, "/v1/messages");
    assert.equal(req.headers["x-api-key"], ENV.CLAUDE_KEY_1);
    assert.ok(req.headers["anthropic-version"], 'expected req.headers["anthropic-version"]');
    assert.equal(req.headers.authorization, undefined);
    assert.deepEqual(req.body, {
      model: MODEL,
      max_tokens: 1024,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      temperature: 0,
      top_k: 40,
      stop_sequences: ["END"],
    });
    assert.ok(
      result.usage.inputTokens > 0 && result.usage.outputTokens === 2,
      "expected result.usage.inputTokens > 0 && result.usage.outputTokens === 2",
    );
  });

  it("drops seed and top_p-with-temperature, records why, and the wire has neither", async () => {
    const { provider } = setup();
    const result = await provider.generate(
      ask("x", { params: { temperature: 0, topP: 0.9, seed: 42, maxTokens: 50 } }),
    );
    assert.deepEqual(
      result.droppedParams.map((d) => [d.name, d.value]),
      [
        ["seed", 42],
        ["topP", 0.9],
      ],
    );
    assert.match(result.droppedParams[0].reason, /no seed/);
    const body = mock.requests[0].body;
    assert.ok(!("seed" in body) && !("top_p" in body), 'expected !("seed" in body) && !("top_p" in body)');
    assert.equal(body.max_tokens, 50);
    assert.ok(!provider.capabilities(MODEL).has("seed"), 'expected !provider.capabilities(MODEL).has("seed")');
  });

  it("keeps top_p when no temperature is set", async () => {
    const { provider } = setup();
    const result = await provider.generate(ask("x", { params: { topP: 0.9 } }));
    assert.deepEqual(result.droppedParams, []);
    assert.equal(mock.requests[0].body.top_p, 0.9);
  });

  it("maps tool use both ways", async () => {
    mock.enqueue(
      messageReply({
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_2", name: "search", input: { q: "paris" } },
        ],
        stop_reason: "tool_use",
      }),
    );
    const { provider } = setup();
    const result = await provider.generate(
      ask("q", {
        messages: [
          { role: "user", content: "capital?" },
          { role: "assistant", content: "", toolCalls: [{ id: "toolu_1", name: "search", arguments: '{"q":"x"}' }] },
          { role: "tool", content: "none", toolCallId: "toolu_1" },
        ],
        tools: [{ name: "search", description: "web", parameters: { type: "object", properties: {} } }],
      }),
    );
    assert.equal(result.text, "Let me look.");
    assert.deepEqual(result.toolCalls, [{ id: "toolu_2", name: "search", arguments: '{"q":"paris"}' }]);
    assert.equal(result.finishReason, "tool_calls");
    const body = mock.requests[0].body;
    assert.deepEqual(body.tools, [
      { name: "search", description: "web", input_schema: { type: "object", properties: {} } },
    ]);
    assert.deepEqual(body.messages.slice(1), [
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "search", input: { q: "x" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "none" }] },
    ]);
  });

  it("waits for Retry-After on a 429 rate_limit_error", async () => {
    mock.enqueue(anthropicErrors.rateLimit({ "retry-after": "12" }));
    const { provider, time } = setup();
    await provider.generate(ask());
    assert.deepEqual(time.slept, [12_000]);
    assert.equal(mock.requests.length, 2);
  });

  it("retries 529 overloaded_error and 500 api_error with backoff", async () => {
    mock.enqueue(anthropicErrors.overloaded(), anthropicErrors.api());
    const { provider, time } = setup({}, { baseDelayMs: 200 });
    const result = await provider.generate(ask());
    assert.equal(result.text, "echo: hello");
    assert.deepEqual(time.slept, [100, 200]);
  });

  it("gives up on 529 after maxRetries with a provider_error", async () => {
    mock.enqueue(anthropicErrors.overloaded(), anthropicErrors.overloaded(), anthropicErrors.overloaded());
    const { provider } = setup({}, { maxRetries: 2 });
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "provider_error");
    assert.equal(error.options.status, 529);
    assert.match(error.message, /overloaded_error/);
    assert.equal(mock.requests.length, 3);
  });

  it("classifies a hang as a timeout", async () => {
    mock.enqueue({ kind: "hang" });
    const { provider } = setup({}, { timeoutMs: 150, maxRetries: 0 });
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "timeout");
  });

  it("classifies a refused connection as a retryable timeout", async () => {
    const provider = createAnthropicProvider(spec({ base_url: await deadPort() }), ENV);
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "timeout");
    assert.ok(error.retryable, "expected error.retryable");
  });

  it("classifies a malformed body and stops retrying it after one retry", async () => {
    const broken = {
      kind: "raw" as const,
      status: 200,
      text: "<html>502 Bad Gateway</html>",
      contentType: "text/html",
    };
    mock.enqueue(broken, broken);
    const { provider } = setup();
    const error = await failure(provider.generate(ask()));
    assert.ok(error instanceof MalformedResponseError, "expected error instanceof MalformedResponseError");
    assert.equal(mock.requests.length, 2);
  });

  it("does not retry 'prompt is too long'", async () => {
    mock.enqueue(anthropicErrors.promptTooLong());
    const { provider, time } = setup();
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "context_too_long");
    assert.equal(mock.requests.length, 1);
    assert.deepEqual(time.slept, []);
  });

  it("maps a refusal stop_reason to content_filter", async () => {
    mock.enqueue(messageReply({ stop_reason: "refusal" }));
    const { provider } = setup();
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "content_filter");
    assert.equal(mock.requests.length, 1);
  });

  it("rotates two keys and cools the one that hit a 429", async () => {
    const { provider, time } = setup({ api_key_env: ["CLAUDE_KEY_1", "CLAUDE_KEY_2"] });
    mock.enqueue(anthropicErrors.rateLimit({ "retry-after": "20" }));
    const first = await provider.generate(ask()); // key 1 -> 429, key 2 serves
    const second = await provider.generate(ask()); // key 1 cooling -> key 2
    assert.deepEqual([first.keySlot, second.keySlot], [1, 1]);
    assert.deepEqual(
      mock.requests.map((r) => r.headers["x-api-key"]),
      [ENV.CLAUDE_KEY_1, ENV.CLAUDE_KEY_2, ENV.CLAUDE_KEY_2],
    );
    assert.deepEqual(time.slept, [0]);
  });

  it("names the missing variable", () => {
    assert.throws(
      () => createAnthropicProvider(spec({ api_key_env: ["CLAUDE_KEY_1", "CLAUDE_KEY_9"] }), ENV),
      (e: unknown) => e instanceof InputError && /CLAUDE_KEY_9/.test(e.message) && !e.message.includes(SECRETS[0]),
    );
    assert.throws(
      () => createAnthropicProvider(ModelSpecSchema.parse({ id: "a", provider: "anthropic", model: MODEL }), {}),
      /ANTHROPIC_API_KEY/,
    );
  });

  it("keeps a rejected key out of the error", async () => {
    const leaky = { CLAUDE_KEY_1: "sk-ant-test-revoked-key-777777" };
    const error = await failure(createAnthropicProvider(spec(), leaky).generate(ask()));
    assert.equal(error.options.status, 401);
    assert.equal(error.bucket, "auth");
    assert.equal(error.retryable, false);
    assert.match(error.message, /authentication_error/);
    assertNoSecret(error, Object.values(leaky));
  });
});
