import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { GenerateRequest } from "../../src/contracts/provider.js";
import { type ModelSpec, ModelSpecSchema } from "../../src/contracts/spec.js";
import { InputError } from "../../src/core/errors.js";
import { MalformedResponseError } from "../../src/models/errors.js";
import { createOpenAIProvider } from "../../src/models/openai.js";
import { type ResilienceOptions, withResilience } from "../../src/models/resilience.js";
import { fakeTime } from "../helpers/mock-clock.js";
import { providerFailure, withFakeResilience } from "../helpers/provider-test.js";
import { mockLogprob, openaiErrors, startOpenAIMock } from "../helpers/mock-openai.js";
import { assertNoSecret } from "../helpers/mock-secrets.js";
import { deadPort, type MockServer, mockTokenize } from "../helpers/mock-server.js";

const ENV = {
  OPENAI_KEY_A: "sk-test-alpha-0000000000000001",
  OPENAI_KEY_B: "sk-test-bravo-0000000000000002",
  OPENAI_KEY_C: "sk-test-charlie-000000000000003",
};
const SECRETS = Object.values(ENV);

let mock: MockServer;
before(async () => {
  mock = await startOpenAIMock(SECRETS);
});
after(() => mock.close());
beforeEach(() => mock.reset());

function spec(over: Record<string, unknown> = {}): ModelSpec {
  return ModelSpecSchema.parse({
    id: "m",
    provider: "openai",
    model: "gpt-4o-mini",
    base_url: `${mock.url}/v1`,
    api_key_env: "OPENAI_KEY_A",
    ...over,
  });
}

function setup(over: Record<string, unknown> = {}, resilience: ResilienceOptions = {}) {
  const time = fakeTime();
  const raw = createOpenAIProvider(spec(over), ENV, { now: time.now });
  const provider = withFakeResilience(raw, time, resilience);
  return { raw, provider, time };
}

function ask(content = "hello", over: Partial<GenerateRequest> = {}): GenerateRequest {
  return { model: "gpt-4o-mini", messages: [{ role: "user", content }], params: {}, ...over };
}

const failure = providerFailure;

const keyOf = (i: number) => mock.requests[i].headers.authorization.replace("Bearer ", "");

describe("openai provider", () => {
  it("sends a chat completion and maps the answer", async () => {
    const { provider } = setup();
    const result = await provider.generate(
      ask("2+2?", {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "2+2?" },
        ],
        params: { temperature: 0, topP: 0.9, seed: 42, maxTokens: 20, stop: ["\n"] },
      }),
    );
    assert.equal(result.text, "echo: 2+2?");
    assert.equal(result.finishReason, "stop");
    assert.equal(result.keySlot, 0);
    assert.deepEqual(result.droppedParams, []);
    assert.deepEqual(result.usage, { inputTokens: 2 + 3 + 1 + 3, outputTokens: 2 }); // mock: words + 3 per message
    const req = mock.requests[0];
    assert.equal(req.path, "/v1/chat/completions");
    assert.equal(req.headers.authorization, `Bearer ${ENV.OPENAI_KEY_A}`);
    assert.deepEqual(req.body, {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "2+2?" },
      ],
      temperature: 0,
      top_p: 0.9,
      seed: 42,
      max_tokens: 20,
      stop: ["\n"],
    });
  });

  it("drops what reasoning models reject and records why; the wire never sees it", async () => {
    const { provider } = setup({ model: "gpt-5.2", drop_params: ["seed"] });
    const result = await provider.generate(
      ask("hi", { model: "gpt-5.2", params: { temperature: 0, topP: 1, topK: 5, seed: 42, maxTokens: 64 } }),
    );
    assert.deepEqual(
      result.droppedParams.map((d) => [d.name, d.value]),
      [
        ["topK", 5],
        ["temperature", 0],
        ["topP", 1],
        ["seed", 42],
      ],
    );
    assert.ok(
      result.droppedParams.every((d) => d.reason.length > 10),
      "expected result.droppedParams.every((d) => d.reason.length > 10)",
    );
    assert.deepEqual(result.paramsUsed, { maxTokens: 64 });
    const body = mock.requests[0].body;
    for (const absent of ["temperature", "top_p", "top_k", "seed", "max_tokens"]) assert.ok(!(absent in body), absent);
    assert.equal(body.max_completion_tokens, 64);
    const caps = provider.capabilities("gpt-5.2");
    assert.ok(!caps.has("temperature"), 'expected !caps.has("temperature")');
    assert.ok(
      provider.capabilities("gpt-4o").has("temperature"),
      'expected provider.capabilities("gpt-4o").has("temperature")',
    );
  });

  it("sends top_k only when the compatible server is declared to take it", async () => {
    const { provider } = setup({ options: { top_k: true } });
    await assert.rejects(provider.generate(ask("x", { params: { topK: 3 } })), /top_k/);
    assert.equal(mock.requests[0].body.top_k, 3);
  });

  it("round-trips tools and returns tool calls", async () => {
    mock.enqueue({
      kind: "json",
      status: 200,
      body: {
        id: "chatcmpl-t",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              refusal: null,
              tool_calls: [
                { id: "call_9", type: "function", function: { name: "search", arguments: '{"q":"paris"}' } },
              ],
            },
            logprobs: null,
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
      },
    });
    const { provider } = setup();
    const result = await provider.generate(
      ask("q", {
        messages: [
          { role: "user", content: "capital?" },
          { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "search", arguments: '{"q":"x"}' }] },
          { role: "tool", content: "no results", toolCallId: "call_1" },
        ],
        tools: [{ name: "search", description: "web search", parameters: { type: "object", properties: {} } }],
      }),
    );
    assert.deepEqual(result.toolCalls, [{ id: "call_9", name: "search", arguments: '{"q":"paris"}' }]);
    assert.equal(result.finishReason, "tool_calls");
    assert.equal(result.text, "");
    const body = mock.requests[0].body;
    assert.deepEqual(body.tools, [
      {
        type: "function",
        function: { name: "search", description: "web search", parameters: { type: "object", properties: {} } },
      },
    ]);
    assert.deepEqual(body.messages[1], {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "search", arguments: '{"q":"x"}' } }],
    });
    assert.deepEqual(body.messages[2], { role: "tool", content: "no results", tool_call_id: "call_1" });
  });

  it("waits for Retry-After (seconds) after a 429, then succeeds", async () => {
    mock.enqueue(openaiErrors.rateLimit({ "retry-after": "7" }));
    const { provider, time } = setup();
    const result = await provider.generate(ask());
    assert.equal(result.text, "echo: hello");
    assert.deepEqual(time.slept, [7000]);
    assert.equal(mock.requests.length, 2);
  });

  it("prefers retry-after-ms and understands an HTTP-date Retry-After", async () => {
    mock.enqueue(openaiErrors.rateLimit({ "retry-after-ms": "1250", "retry-after": "2" }));
    mock.enqueue(openaiErrors.rateLimit({ "retry-after": "Tue, 01 Jan 2030 00:00:20 GMT" }));
    const { provider, time } = setup();
    await provider.generate(ask());
    // The fake clock starts at 2030-01-01T00:00:00Z and the first sleep moved it 1.25 s.
    assert.deepEqual(time.slept, [1250, 18750]);
  });

  it("retries 500 and 503 with exponential backoff and full jitter", async () => {
    mock.enqueue(openaiErrors.server(500), openaiErrors.server(503));
    const retries: number[] = [];
    const { provider, time } = setup({}, { baseDelayMs: 1000, onRetry: (r) => retries.push(r.error.options.status!) });
    const result = await provider.generate(ask());
    assert.equal(result.text, "echo: hello");
    assert.deepEqual(time.slept, [500, 1000]); // random 0.5 x 1000 x 2^attempt
    assert.deepEqual(retries, [500, 503]);
  });

  it("classifies a hung request as a timeout and retries it", async () => {
    mock.enqueue({ kind: "hang" }, { kind: "hang" });
    const { provider } = setup({}, { timeoutMs: 150, maxRetries: 1 });
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "timeout");
    assert.equal(mock.requests.length, 2);
  });

  it("classifies a refused connection as a retryable timeout", async () => {
    const time = fakeTime();
    const provider = createOpenAIProvider(spec({ base_url: `${await deadPort()}/v1` }), ENV, { now: time.now });
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "timeout");
    assert.ok(error.retryable, "expected error.retryable");
  });

  it("retries a malformed body once, then gives up as provider_error", async () => {
    const broken = { kind: "raw" as const, status: 200, text: '{"id": "chatcmpl-x", "choices": [' };
    mock.enqueue(broken, broken, broken);
    const { provider } = setup();
    const error = await failure(provider.generate(ask()));
    assert.ok(error instanceof MalformedResponseError, "expected error instanceof MalformedResponseError");
    assert.equal(error.bucket, "provider_error");
    assert.equal(mock.requests.length, 2);
  });

  it("treats valid JSON of the wrong shape as malformed", async () => {
    mock.enqueue({ kind: "json", status: 200, body: { object: "chat.completion", choices: [] } });
    const { raw } = setup();
    const error = await failure(raw.generate(ask()));
    assert.ok(error instanceof MalformedResponseError, "expected error instanceof MalformedResponseError");
  });

  for (const [label, reply, bucket] of [
    ["context length", openaiErrors.contextLength(), "context_too_long"],
    ["content filter error code", openaiErrors.contentFilter(), "content_filter"],
    ["exhausted quota", openaiErrors.quota(), "rate_limit"],
  ] as const) {
    it(`does not retry ${label} (${bucket})`, async () => {
      mock.enqueue(reply);
      const { provider, time } = setup();
      const error = await failure(provider.generate(ask()));
      assert.equal(error.bucket, bucket);
      assert.equal(error.retryable, false);
      assert.equal(mock.requests.length, 1);
      assert.deepEqual(time.slept, []);
    });
  }

  it("maps a content_filter finish reason to content_filter", async () => {
    mock.enqueue({
      kind: "json",
      status: 200,
      body: {
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "content_filter" }],
        usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 },
      },
    });
    const { provider } = setup();
    const error = await failure(provider.generate(ask()));
    assert.equal(error.bucket, "content_filter");
    assert.equal(mock.requests.length, 1);
  });

  it("rotates keys round-robin and cools a key that got a 429", async () => {
    const { provider, time } = setup({ api_key_env: ["OPENAI_KEY_A", "OPENAI_KEY_B", "OPENAI_KEY_C"] });
    const slots: Array<number | undefined> = [];
    slots.push((await provider.generate(ask())).keySlot); // A
    mock.enqueue(openaiErrors.rateLimit({ "retry-after": "30" }));
    slots.push((await provider.generate(ask())).keySlot); // B 429 -> C at once
    slots.push((await provider.generate(ask())).keySlot); // A
    slots.push((await provider.generate(ask())).keySlot); // B cooling -> C
    time.advance(30_000);
    slots.push((await provider.generate(ask())).keySlot); // A
    slots.push((await provider.generate(ask())).keySlot); // B is back
    assert.deepEqual(slots, [0, 2, 0, 2, 0, 1]);
    const [A, B, C] = SECRETS;
    assert.deepEqual(
      mock.requests.map((_, i) => keyOf(i)),
      [A, B, C, A, C, A, B],
    );
    assert.deepEqual(time.slept, [0]); // another key was free: no waiting
  });

  it("waits for the earliest key when every key is cooling", async () => {
    mock.enqueue(openaiErrors.rateLimit({ "retry-after": "10" }), openaiErrors.rateLimit({ "retry-after": "4" }));
    const { provider, time } = setup({ api_key_env: ["OPENAI_KEY_A", "OPENAI_KEY_B"] });
    const result = await provider.generate(ask());
    assert.deepEqual(time.slept, [0, 4000]);
    assert.equal(result.keySlot, 1);
  });

  it("reads its options through OpenAIOptionsSchema: a wrong type, a bad rpm or an unknown key is one clear error", () => {
    for (const [options, detail] of [
      [{ top_k: "yes" }, /options\.top_k|top_k: /],
      [{ rpm_per_key: 0 }, /rpm_per_key: /],
      [{ completion_logprobs: true }, /completion_logprobs/],
    ] as const)
      assert.throws(
        () => createOpenAIProvider(spec({ options }), ENV),
        (e: unknown) => {
          assert.ok(e instanceof InputError, `expected an InputError for ${JSON.stringify(options)}`);
          assert.match(e.message, /^model 'm' \(openai\): invalid options: /);
          assert.match(e.message, detail);
          return true;
        },
      );
  });

  it("names a missing key variable, not any key value", () => {
    assert.throws(
      () => createOpenAIProvider(spec({ api_key_env: ["OPENAI_KEY_A", "OPENAI_KEY_MISSING"] }), ENV),
      (e: unknown) => {
        assert.ok(e instanceof InputError, "expected e instanceof InputError");
        assert.match(e.message, /OPENAI_KEY_MISSING/);
        assertNoSecret(e, SECRETS);
        return true;
      },
    );
    assert.throws(
      () => createOpenAIProvider(ModelSpecSchema.parse({ id: "m", provider: "openai", model: "gpt-4o" }), {}),
      /OPENAI_API_KEY/,
    );
  });

  it("never puts the key in an error or a result, even when the server echoes it", async () => {
    const leaky = { OPENAI_KEY_A: "sk-test-not-accepted-by-mock-99" };
    const raw = createOpenAIProvider(spec(), leaky);
    const error = await failure(withResilience(raw, { sleep: async () => {} }).generate(ask()));
    assert.equal(error.options.status, 401);
    assert.equal(error.bucket, "auth");
    assert.equal(error.retryable, false);
    assert.match(mock.requests[0].headers.authorization, /not-accepted/); // the server did see it...
    assertNoSecret(error, Object.values(leaky)); // ...the error does not
    const ok = await createOpenAIProvider(spec(), ENV).generate(ask());
    assertNoSecret(ok, SECRETS);
  });

  it("sends no OpenAI key to a base_url without api_key_env", async () => {
    const provider = createOpenAIProvider(
      ModelSpecSchema.parse({ id: "local", provider: "openai", model: "llama3", base_url: `${mock.url}/v1` }),
      { OPENAI_API_KEY: "sk-real-openai-key-must-stay-home" },
    );
    await failure(provider.generate(ask()));
    assert.equal(mock.requests[0].headers.authorization, "Bearer no-key");
  });
});

describe("openai continuation logprobs (legacy completions, echo)", () => {
  const prompt = "Question: 2+2=?\nAnswer:";

  it("is offered only when options.completions_logprobs is set", () => {
    const { raw } = setup();
    assert.equal(raw.continuationLogprobs, undefined);
    assert.ok(
      !raw.capabilities("gpt-4o-mini").has("continuation_logprobs"),
      'expected !raw.capabilities("gpt-4o-mini").has("continuation_logprobs")',
    );
    const on = setup({ options: { completions_logprobs: true } }).raw;
    assert.ok(
      on.capabilities("gpt-4o-mini").has("continuation_logprobs"),
      'expected on.capabilities("gpt-4o-mini").has("continuation_logprobs")',
    );
  });

  it("scores each continuation from the echoed prompt by character offsets", async () => {
    const { provider } = setup({ options: { completions_logprobs: true } });
    const result = await provider.continuationLogprobs!({
      model: "gpt-4o-mini",
      prompt,
      continuations: [" 4", " five apples"],
    });
    const expected = (cont: string) => mockTokenize(prompt + cont).slice(mockTokenize(prompt).length);
    for (const [i, cont] of [" 4", " five apples"].entries()) {
      const scored = result.continuations[i];
      assert.equal(scored.continuation, cont);
      assert.deepEqual(
        scored.tokens.map((t) => t.token),
        expected(cont),
      );
      const total = expected(cont).reduce((s, t) => s + mockLogprob(t), 0);
      assert.ok(Math.abs(scored.total - total) < 1e-12, "expected Math.abs(scored.total - total) < 1e-12");
    }
    const body = mock.requests[0].body;
    assert.equal(mock.requests[0].path, "/v1/completions");
    assert.deepEqual(body.prompt, [`${prompt} 4`, `${prompt} five apples`]);
    assert.equal(body.echo, true);
    assert.equal(body.max_tokens, 0);
    assert.ok(result.usage.inputTokens > 0, "expected result.usage.inputTokens > 0");
  });

  it("counts offsets in code points, as the Python servers do", async () => {
    const { provider } = setup({ options: { completions_logprobs: true } });
    const emojiPrompt = "Mood 😀 now:";
    const result = await provider.continuationLogprobs!({
      model: "gpt-4o-mini",
      prompt: emojiPrompt,
      continuations: [" calm"],
    });
    assert.deepEqual(
      result.continuations[0].tokens.map((t) => t.token),
      [" calm"],
    );
  });

  it("retries a 429 on the logprob path too", async () => {
    mock.enqueue(openaiErrors.rateLimit({ "retry-after": "3" }));
    const { provider, time } = setup({ options: { completions_logprobs: true } });
    await provider.continuationLogprobs!({ model: "gpt-4o-mini", prompt, continuations: [" 4"] });
    assert.deepEqual(time.slept, [3000]);
  });

  it("fails clearly when the server does not echo logprobs", async () => {
    mock.enqueue({
      kind: "json",
      status: 200,
      body: {
        id: "cmpl",
        object: "text_completion",
        created: 1,
        model: "m",
        choices: [{ index: 0, text: "", logprobs: null, finish_reason: "length" }],
        usage: { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 },
      },
    });
    const { provider } = setup({ options: { completions_logprobs: true } });
    const error = await failure(provider.continuationLogprobs!({ model: "m", prompt, continuations: [" 4"] }));
    assert.match(error.message, /no echo logprobs/);
    assert.equal(error.retryable, false);
  });
});
