/**
 * A 429 on a single API key, with the real OpenAI SDK against a local server that holds a
 * cool-down window: the other in-flight trials wait for the key's cool-down (without
 * spending a retry attempt, since nothing was sent) and then succeed, instead of failing
 * with "all keys are cooling down"; a cool-down longer than the retry policy allows fails at
 * once with a message that says so.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { Hono } from "hono";
import type { GenerateRequest, Provider } from "../../src/contracts/provider.js";
import { ModelSpecSchema } from "../../src/contracts/spec.js";
import { ProviderError } from "../../src/core/errors.js";
import { createOpenAIProvider } from "../../src/models/openai.js";
import { type ResilienceOptions, withResilience } from "../../src/models/resilience.js";
import { openaiErrors } from "../helpers/mock-openai.js";
import { json, MockServer } from "../helpers/mock-server.js";

const ENV = { OPENAI_KEY_ONLY: "sk-test-only-key-00000000000001" };

/**
 * The server: the first request of a window is answered 429 with `retry-after-ms: coolMs`
 * (or `retry-after` seconds) and opens the cool-down; a request arriving inside it is also
 * answered 429 (and counted as a violation); after it, every request succeeds.
 */
class CoolingServer {
  readonly mock = new MockServer();
  coolMs = 300;
  header: "retry-after-ms" | "retry-after" = "retry-after-ms";
  triggered = false;
  coolUntil = 0;
  ok = 0;
  limited = 0;
  duringCooldown = 0;

  reset(): void {
    this.mock.reset();
    this.triggered = false;
    this.coolUntil = 0;
    this.ok = this.limited = this.duringCooldown = 0;
  }

  async start(): Promise<void> {
    const app = new Hono();
    app.post("/v1/chat/completions", async (c) => {
      const req = await this.mock.record(c);
      const now = Date.now();
      const value = () =>
        this.header === "retry-after-ms"
          ? String(Math.max(1, this.coolUntil - now))
          : String(Math.ceil((this.coolUntil - now) / 1000));
      if (!this.triggered) {
        this.triggered = true;
        this.coolUntil = now + this.coolMs;
        this.limited += 1;
        return limit({ [this.header]: value() });
      }
      if (now < this.coolUntil) {
        this.limited += 1;
        this.duringCooldown += 1;
        return limit({ [this.header]: value() });
      }
      this.ok += 1;
      const content = `echo: ${req.body.messages.at(-1).content}`;
      return json(200, {
        id: "chatcmpl-mock",
        object: "chat.completion",
        created: 1_700_000_000,
        model: req.body.model,
        choices: [{ index: 0, message: { role: "assistant", content }, logprobs: null, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      });
    });
    await this.mock.start(app);
  }
}

function limit(headers: Record<string, string>): Response {
  const reply = openaiErrors.rateLimit(headers);
  return json(reply.status, reply.body, reply.headers);
}

const server = new CoolingServer();
before(() => server.start());
after(() => server.mock.close());
beforeEach(() => server.reset());

/** One provider (one key, one key pool) shared by every trial, as in a run. */
function provider(resilience: ResilienceOptions): Provider {
  const spec = ModelSpecSchema.parse({
    id: "m",
    provider: "openai",
    model: "gpt-4o-mini",
    base_url: `${server.mock.url}/v1`,
    api_key_env: "OPENAI_KEY_ONLY",
  });
  return withResilience(createOpenAIProvider(spec, ENV), resilience);
}

const ask = (content: string): GenerateRequest => ({
  model: "gpt-4o-mini",
  messages: [{ role: "user", content }],
  params: {},
});

async function settle<T>(p: Promise<T>): Promise<{ value?: T; error?: ProviderError }> {
  try {
    return { value: await p };
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    return { error };
  }
}

/** Resolves once the first trial's 429 has come back (its onRetry fires, or it failed). */
function firstLimited(): { seen: Promise<void>; onRetry: () => void } {
  let release = () => {};
  const seen = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { seen, onRetry: () => release() };
}

describe("a 429 on the only API key", () => {
  it("makes the trials in flight wait for the key's cool-down, then every one succeeds", async () => {
    const gate = firstLimited();
    const p = provider({ maxRetries: 1, maxDelayMs: 2000, onRetry: gate.onRetry });
    const started = Date.now();
    const first = settle(p.generate(ask("trial 0")));
    await gate.seen; // the key is cooling now
    const others = [1, 2, 3, 4, 5].map((i) => settle(p.generate(ask(`trial ${i}`))));
    const results = await Promise.all([first, ...others]);
    const elapsed = Date.now() - started;

    assert.deepEqual(
      results.map((r) => r.error?.message),
      results.map(() => undefined),
    );
    assert.deepEqual(
      results.map((r) => r.value?.text),
      [0, 1, 2, 3, 4, 5].map((i) => `echo: trial ${i}`),
    );
    assert.equal(server.limited, 1, "one 429 only");
    assert.equal(server.duringCooldown, 0, "nothing was sent to the server during the cool-down");
    assert.equal(server.ok, 6);
    assert.ok(elapsed >= server.coolMs - 20, `waited the cool-down (${elapsed} ms)`);
  });

  it("does not spend a retry attempt on waiting: with max_retries 0 only the trial that got the 429 fails", async () => {
    const p = provider({ maxRetries: 0, maxDelayMs: 2000 });
    const first = await settle(p.generate(ask("trial 0")));
    assert.equal(first.error?.options.status, 429, "its own request was refused and no retry is allowed");
    assert.equal(first.error?.bucket, "rate_limit");
    const others = await Promise.all([1, 2, 3].map((i) => settle(p.generate(ask(`trial ${i}`)))));
    for (const r of others) {
      assert.equal(r.error, undefined, r.error?.message);
      assert.doesNotMatch(r.value?.text ?? "", /cooling/);
    }
    assert.deepEqual([server.limited, server.duringCooldown, server.ok], [1, 0, 3]);
  });

  it("trials already sent when the 429 arrives each retry once after the cool-down and succeed", async () => {
    const p = provider({ maxRetries: 1, maxDelayMs: 2000 });
    const results = await Promise.all([0, 1, 2, 3].map((i) => settle(p.generate(ask(`trial ${i}`)))));
    for (const r of results) assert.equal(r.error, undefined, r.error?.message);
    assert.equal(server.ok, 4);
    // Those sent before the first 429 came back were refused inside the window (how many depends
    // on scheduling) and retried once; those started after it waited for the key instead.
    assert.ok(server.limited >= 1 && server.limited <= 4, `${server.limited} refused`);
    assert.equal(server.duringCooldown, server.limited - 1);
  });

  it("fails at once, saying why, when the cool-down is longer than the retry policy waits", async () => {
    server.header = "retry-after";
    server.coolMs = 120_000; // the server asks for two minutes
    try {
      const gate = firstLimited();
      // The policy: 2 retries of at most 1 s: it never waits more than 2 s for one call.
      const p = provider({ maxRetries: 2, maxDelayMs: 1000, onRetry: gate.onRetry });
      const started = Date.now();
      const first = await settle(p.generate(ask("trial 0")));
      const others = await Promise.all([1, 2].map((i) => settle(p.generate(ask(`trial ${i}`)))));
      const elapsed = Date.now() - started;

      assert.ok(elapsed < 10_000, `no waiting for the 120 s cool-down (${elapsed} ms)`);
      assert.equal(first.error?.bucket, "rate_limit");
      assert.equal(first.error?.retryable, false);
      assert.match(first.error?.message ?? "", /backing off would take 120 s more/);
      assert.match(first.error?.message ?? "", /beyond the retry policy's wait limit of 2 s/);
      assert.match(first.error?.message ?? "", /Rate limit reached/, "the server's own message is kept");
      for (const r of others) {
        assert.equal(r.error?.bucket, "rate_limit");
        assert.match(r.error?.message ?? "", /waiting for a cooling API key would take 1\d\d(\.\d)? s more/);
        assert.match(r.error?.message ?? "", /wait limit of 2 s .*execution\.max_retries.*backoff_max_ms/);
        assert.match(r.error?.message ?? "", /next `parallax run` retries it/);
      }
      assert.deepEqual([server.limited, server.duringCooldown, server.ok], [1, 0, 0]);
    } finally {
      server.header = "retry-after-ms";
      server.coolMs = 300;
    }
  });
});
