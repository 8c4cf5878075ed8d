import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, it } from "node:test";
import type { GenerateRequest, GenerateResult, Provider, TokenUsage } from "../../src/contracts/provider.js";
import { ExecutionSchema } from "../../src/contracts/spec.js";
import { ProviderError } from "../../src/core/errors.js";
import { MalformedResponseError } from "../../src/models/errors.js";
import {
  estimateTokens,
  type ResilienceOptions,
  resilienceFromSpec,
  ModelLimiter,
  TokenBucket,
  withResilience,
} from "../../src/models/resilience.js";
import { fakeTime } from "../helpers/mock-clock.js";

type Step = Error | "ok" | "hang" | ((signal?: AbortSignal) => Promise<GenerateResult>);

/** A provider that plays a script of failures and successes and records the signals it saw. */
function scripted(steps: Step[], usage: TokenUsage = { inputTokens: 1, outputTokens: 1 }) {
  const signals: Array<AbortSignal | undefined> = [];
  let calls = 0;
  const provider: Provider = {
    name: "fake",
    simulated: true,
    capabilities: () => new Set(["generate"]),
    generate: async (request: GenerateRequest) => {
      signals.push(request.signal);
      const step = steps[Math.min(calls++, steps.length - 1)];
      if (step instanceof Error) throw step;
      if (typeof step === "function") return step(request.signal);
      if (step === "hang") {
        return new Promise<GenerateResult>((_, reject) =>
          request.signal?.addEventListener("abort", () => reject(new Error("aborted by signal"))),
        );
      }
      return { text: `ok ${calls}`, usage, paramsUsed: {}, droppedParams: [] };
    },
  };
  return { provider, signals, calls: () => calls };
}

const req = (content = "x".repeat(400), maxTokens?: number): GenerateRequest => ({
  model: "m",
  messages: [{ role: "user", content }],
  params: maxTokens === undefined ? {} : { maxTokens },
});

const server5xx = () => new ProviderError("HTTP 503", "provider_error", { retryable: true, status: 503 });

function wrap(provider: Provider, options: ResilienceOptions = {}) {
  const time = fakeTime();
  return {
    wrapped: withResilience(provider, { now: time.now, sleep: time.sleep, random: () => 0.5, ...options }),
    time,
  };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  assert.fail("expected a failure");
}

describe("withResilience retries", () => {
  it("backs off exponentially with full jitter, capped at maxDelayMs", async () => {
    const fake = scripted([server5xx(), server5xx(), server5xx(), server5xx(), "ok"]);
    const { wrapped, time } = wrap(fake.provider, { baseDelayMs: 100, maxDelayMs: 500 });
    const result = await wrapped.generate(req());
    assert.equal(result.text, "ok 5");
    // 0.5 x min(500, 100 x 2^k)
    assert.deepEqual(time.slept, [50, 100, 200, 250]);
  });

  it("draws the jitter uniformly from [0, ceiling)", async () => {
    const draws = [0, 0.999];
    const fake = scripted([server5xx(), server5xx(), "ok"]);
    const { wrapped, time } = wrap(fake.provider, { baseDelayMs: 1000, random: () => draws.shift()! });
    await wrapped.generate(req());
    assert.deepEqual(time.slept, [0, 1998]);
  });

  it("stops after maxRetries and throws the last error", async () => {
    const fake = scripted([server5xx()]);
    const { wrapped, time } = wrap(fake.provider, { maxRetries: 3 });
    const error = await failure(wrapped.generate(req()));
    assert.ok(
      error instanceof ProviderError && error.options.status === 503,
      "expected error instanceof ProviderError && error.options.status === 503",
    );
    assert.equal(fake.calls(), 4);
    assert.equal(time.slept.length, 3);
  });

  it("honours retryAfterMs instead of backoff, even beyond maxDelayMs", async () => {
    const limited = new ProviderError("429", "rate_limit", { retryable: true, status: 429, retryAfterMs: 90_000 });
    const fake = scripted([limited, "ok"]);
    const { wrapped, time } = wrap(fake.provider, { maxDelayMs: 60_000 });
    await wrapped.generate(req());
    assert.deepEqual(time.slept, [90_000]);
  });

  it("fails at once on non-retryable errors and on unknown errors", async () => {
    for (const error of [
      new ProviderError("too long", "context_too_long", { retryable: false, status: 400 }),
      new ProviderError("blocked", "content_filter", { retryable: false }),
      new TypeError("a bug"),
    ]) {
      const fake = scripted([error, "ok"]);
      const { wrapped, time } = wrap(fake.provider);
      assert.equal(await failure(wrapped.generate(req())), error);
      assert.equal(fake.calls(), 1);
      assert.deepEqual(time.slept, []);
    }
  });

  it("retries a malformed body only maxMalformedRetries times", async () => {
    const fake = scripted([new MalformedResponseError("bad json")]);
    const { wrapped } = wrap(fake.provider, { maxRetries: 5, maxMalformedRetries: 2 });
    assert.ok(
      (await failure(wrapped.generate(req()))) instanceof MalformedResponseError,
      "expected (await failure(wrapped.generate(req()))) instanceof MalformedResponseError",
    );
    assert.equal(fake.calls(), 3);
  });

  it("reports each retry through onRetry", async () => {
    const seen: Array<[number, number, string]> = [];
    const fake = scripted([server5xx(), "ok"]);
    const { wrapped } = wrap(fake.provider, {
      baseDelayMs: 10,
      onRetry: (r) => seen.push([r.attempt, r.delayMs, r.error.bucket]),
    });
    await wrapped.generate(req());
    assert.deepEqual(seen, [[1, 5, "provider_error"]]);
  });

  it("does not retry once the caller aborts", async () => {
    const controller = new AbortController();
    const fake = scripted([
      async () => {
        controller.abort(new Error("user cancelled"));
        throw server5xx();
      },
      "ok",
    ]);
    const { wrapped } = wrap(fake.provider);
    const error = await failure(wrapped.generate({ ...req(), signal: controller.signal }));
    assert.match(String(error), /user cancelled/);
    assert.equal(fake.calls(), 1);
  });
});

describe("withResilience timeout", () => {
  /** A manual timer: tests fire it explicitly, no wall clock involved. */
  function manualTimer() {
    const pending: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
    return {
      setTimer: (fn: () => void, ms: number) => {
        const entry = { fn, ms, cancelled: false };
        pending.push(entry);
        return () => {
          entry.cancelled = true;
        };
      },
      fireNext: () => {
        const entry = pending.find((p) => !p.cancelled);
        assert.ok(entry, "no armed timer");
        entry.cancelled = true;
        entry.fn();
      },
      armed: () => pending.filter((p) => !p.cancelled).map((p) => p.ms),
    };
  }

  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it("aborts the attempt, classifies it as timeout, and retries", async () => {
    const timer = manualTimer();
    const fake = scripted(["hang", "ok"]);
    const { wrapped } = wrap(fake.provider, { timeoutMs: 5000, setTimer: timer.setTimer });
    const pending = wrapped.generate(req());
    await tick();
    assert.deepEqual(timer.armed(), [5000]);
    timer.fireNext();
    const result = await pending;
    assert.equal(result.text, "ok 2");
    assert.equal(fake.signals[0]?.aborted, true);
    const reason = fake.signals[0]?.reason;
    assert.ok(
      reason instanceof ProviderError && reason.bucket === "timeout",
      'expected reason instanceof ProviderError && reason.bucket === "timeout"',
    );
    assert.deepEqual(timer.armed(), [], "the second attempt's timer is cancelled");
  });

  it("times out a provider that ignores its signal", async () => {
    const timer = manualTimer();
    const fake = scripted([() => new Promise<GenerateResult>(() => {})]);
    const { wrapped } = wrap(fake.provider, { timeoutMs: 1000, maxRetries: 0, setTimer: timer.setTimer });
    const pending = failure(wrapped.generate(req()));
    await tick();
    timer.fireNext();
    const error = await pending;
    assert.ok(error instanceof ProviderError, "expected error instanceof ProviderError");
    assert.equal(error.bucket, "timeout");
    assert.equal(error.retryable, true);
  });

  it("gives a provider that reads no signal the caller's own, and still times its call out", async () => {
    const timer = manualTimer();
    const caller = new AbortController();
    const fake = scripted(["ok", () => new Promise<GenerateResult>(() => {}), "ok"]);
    const provider: Provider = { ...fake.provider, readsSignal: false };
    const { wrapped } = wrap(provider, { timeoutMs: 1000, setTimer: timer.setTimer });
    await wrapped.generate({ ...req(), signal: caller.signal });
    assert.equal(fake.signals[0], caller.signal, "no signal of the attempt's own: the caller's");
    assert.deepEqual(timer.armed(), [], "the finished call's timer is cancelled");
    const pending = wrapped.generate(req());
    await tick();
    assert.deepEqual(timer.armed(), [1000], "the hanging call is timed");
    timer.fireNext();
    const result = await pending;
    assert.equal(result.text, "ok 3", "timed out as a retryable timeout, then retried");
    assert.equal(fake.signals[1], undefined, "no caller's signal, none made");
    assert.deepEqual(timer.armed(), []);
  });

  it("gives each attempt a signal of its own when the provider reads one (the default)", async () => {
    const timer = manualTimer();
    const caller = new AbortController();
    const fake = scripted(["ok"]);
    const { wrapped } = wrap({ ...fake.provider, readsSignal: true }, { timeoutMs: 1000, setTimer: timer.setTimer });
    await wrapped.generate({ ...req(), signal: caller.signal });
    await wrap(fake.provider, { timeoutMs: 1000, setTimer: timer.setTimer }).wrapped.generate(req());
    for (const signal of fake.signals) {
      assert.ok(signal instanceof AbortSignal && signal !== caller.signal, "an attempt's own signal");
    }
  });

  it("passes a caller's abort to an attempt under a timeout, and leaves the caller's signal as it found it", async () => {
    const timer = manualTimer();
    const controller = new AbortController();
    const fake = scripted(["ok", "ok", "ok", "hang"]);
    const { wrapped } = wrap(fake.provider, { timeoutMs: 5000, maxRetries: 0, setTimer: timer.setTimer });
    for (let i = 0; i < 3; i++) await wrapped.generate({ ...req(), signal: controller.signal });
    assert.equal(getEventListeners(controller.signal, "abort").length, 0, "no listener left by finished attempts");
    // AbortSignal.any on Node 20 keeps a WeakRef per call in the long-lived signal's dependants.
    const dependants = Object.getOwnPropertySymbols(controller.signal).find(
      (symbol) => symbol.description === "kDependantSignals",
    );
    const kept = dependants ? (controller.signal as unknown as Record<symbol, Set<unknown>>)[dependants] : undefined;
    assert.equal(kept?.size ?? 0, 0, "no dependant signal kept by the caller's signal");
    const pending = failure(wrapped.generate({ ...req(), signal: controller.signal }));
    await tick();
    controller.abort(new Error("user cancelled"));
    const error = await pending;
    assert.match(String(error), /user cancelled/);
    assert.equal(fake.signals[3]?.aborted, true, "the attempt's signal is aborted");
    assert.match(String(fake.signals[3]?.reason), /user cancelled/, "with the caller's reason");
    assert.deepEqual(timer.armed(), [], "the attempt's timer is cancelled");
  });
});

describe("rate limiting", () => {
  it("spaces requests to the rpm budget on a fake clock", async () => {
    const fake = scripted(["ok"]);
    const { wrapped, time } = wrap(fake.provider, { rateLimit: { rpm: 2 } });
    for (let i = 0; i < 4; i++) await wrapped.generate(req());
    // 2 at once (burst), then one token per 30 s.
    assert.deepEqual(time.slept, [30_000, 30_000]);
  });

  it("charges estimated tokens up front and settles with actual usage", async () => {
    // estimate: 400 chars / 4 = 100 tokens; actual usage 700 tokens per call.
    const fake = scripted(["ok"], { inputTokens: 600, outputTokens: 100 });
    const { wrapped, time } = wrap(fake.provider, { rateLimit: { tpm: 1000 } });
    await wrapped.generate(req());
    assert.deepEqual(time.slept, []);
    // bucket: 1000 - 700 = 300 left; next estimate 100 fits.
    await wrapped.generate(req());
    // bucket: 300 - 700 = -400; next needs 100: (100 + 400) / (1000 / 60000) = 30000 ms.
    await wrapped.generate(req());
    assert.deepEqual(time.slept, [30_000]);
  });

  it("caps an estimate above the tpm capacity instead of waiting forever", async () => {
    const fake = scripted(["ok"], { inputTokens: 10, outputTokens: 10 });
    const { wrapped } = wrap(fake.provider, { rateLimit: { tpm: 50 } });
    const result = await wrapped.generate(req("y".repeat(4000), 500));
    assert.equal(result.text, "ok 1");
  });

  it("keeps separate budgets per model", async () => {
    const fake = scripted(["ok"]);
    const { wrapped, time } = wrap(fake.provider, { rateLimit: { rpm: 1 } });
    await wrapped.generate({ ...req(), model: "a" });
    await wrapped.generate({ ...req(), model: "b" });
    assert.deepEqual(time.slept, []);
    await wrapped.generate({ ...req(), model: "a" });
    assert.deepEqual(time.slept, [60_000]);
  });

  it("never runs more than `concurrency` calls at once", async () => {
    let inFlight = 0;
    let peak = 0;
    const gates: Array<() => void> = [];
    const fake = scripted([
      () =>
        new Promise<GenerateResult>((resolve) => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          gates.push(() => {
            inFlight -= 1;
            resolve({ text: "done", usage: { inputTokens: 0, outputTokens: 0 }, paramsUsed: {}, droppedParams: [] });
          });
        }),
    ]);
    const { wrapped } = wrap(fake.provider, { rateLimit: { concurrency: 2 } });
    const all = Promise.all(Array.from({ length: 5 }, () => wrapped.generate(req())));
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    for (let released = 0; released < 5; released++) {
      await tick();
      assert.ok(inFlight <= 2, `in flight ${inFlight}`);
      gates.shift()!();
    }
    assert.equal((await all).length, 5);
    assert.equal(peak, 2);
  });
});

describe("building blocks", () => {
  it("TokenBucket refills continuously and can go into debt", () => {
    const time = fakeTime();
    const bucket = new TokenBucket(10, 1 / 1000, time.now);
    bucket.take(10);
    assert.equal(bucket.waitFor(1), 1000);
    time.advance(500);
    assert.equal(bucket.waitFor(1), 500);
    bucket.adjust(5); // charged 5 more after the fact
    assert.equal(bucket.waitFor(1), 5500);
    bucket.adjust(-100); // refunds never exceed capacity
    assert.equal(bucket.waitFor(10), 0);
    assert.equal(bucket.waitFor(11), 0, "requests above capacity are capped");
  });

  it("ModelLimiter's concurrency slots are FIFO and a waiting call honours abort", async () => {
    const time = fakeTime();
    const limiter = new ModelLimiter({ concurrency: 1 }, time.now, time.sleep);
    const order: number[] = [];
    const gates: Array<() => void> = [];
    const gated = (n: number) => () =>
      new Promise<number>((resolve) => {
        order.push(n);
        gates.push(() => resolve(n));
      });
    const first = limiter.run(0, undefined, gated(1));
    const second = limiter.run(0, undefined, gated(2));
    const controller = new AbortController();
    const aborted = limiter.run(0, controller.signal, gated(3));
    const fourth = limiter.run(0, undefined, gated(4));
    controller.abort(new Error("gave up"));
    await assert.rejects(aborted, /gave up/);
    assert.equal(limiter.inFlight, 1);
    for (const running of [first, second, fourth]) {
      await new Promise((resolve) => setImmediate(resolve));
      gates.shift()!();
      await running;
    }
    assert.deepEqual(order, [1, 2, 4]);
    assert.equal(limiter.inFlight, 0);
  });

  it("estimates tokens from characters plus the output budget", () => {
    assert.equal(estimateTokens(req("abcdefgh", 10)), 12);
  });

  it("reads the study's execution block", () => {
    const options = resilienceFromSpec(ExecutionSchema.parse({ timeout_s: 30, max_retries: 2 }), { rpm: 60 });
    assert.deepEqual(options, {
      maxRetries: 2,
      timeoutMs: 30_000,
      baseDelayMs: 500,
      maxDelayMs: 60_000,
      rateLimit: { rpm: 60 },
    });
  });

  it("passes name, capabilities and the logprob path through", async () => {
    const inner: Provider = {
      name: "inner",
      simulated: true,
      capabilities: () => new Set(["generate", "continuation_logprobs"]),
      generate: async () => assert.fail("unused"),
      continuationLogprobs: async (r) => ({
        continuations: r.continuations.map((c) => ({ continuation: c, tokens: [], total: -1 })),
        usage: { inputTokens: 1, outputTokens: 0 },
      }),
    };
    const { wrapped } = wrap(inner);
    assert.equal(wrapped.name, "inner");
    assert.ok(
      wrapped.capabilities("m").has("continuation_logprobs"),
      'expected wrapped.capabilities("m").has("continuation_logprobs")',
    );
    const out = await wrapped.continuationLogprobs!({ model: "m", prompt: "p", continuations: ["a", "b"] });
    assert.equal(out.continuations.length, 2);
    const { wrapped: plain } = wrap(scripted(["ok"]).provider);
    assert.equal(plain.continuationLogprobs, undefined);
  });
});
