import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InputError, ProviderError } from "../../src/core/errors.js";
import { KeyPool, resolveApiKeys } from "../../src/models/keys.js";
import { fakeTime } from "../helpers/mock-clock.js";

const base = { provider: "openai", modelId: "m", defaultEnv: ["OPENAI_API_KEY"] };

describe("resolveApiKeys", () => {
  it("reads the named variables in order", () => {
    const env = { K1: "one-secret", K2: " two-secret \n" };
    assert.deepEqual(resolveApiKeys({ ...base, apiKeyEnv: ["K1", "K2"], env }), ["one-secret", "two-secret"]);
    assert.deepEqual(resolveApiKeys({ ...base, apiKeyEnv: "K2", env }), ["two-secret"]);
  });

  it("names the missing or empty variable and never a value", () => {
    const env = { K1: "one-secret", K2: "" };
    assert.throws(
      () => resolveApiKeys({ ...base, apiKeyEnv: ["K1", "K2"], env }),
      (e: unknown) =>
        e instanceof InputError && /K2/.test(e.message) && /model 'm'/.test(e.message) && !/one-secret/.test(e.message),
    );
  });

  it("falls back to the default variables, first set wins", () => {
    const defaults = { ...base, defaultEnv: ["A_KEY", "B_KEY"], apiKeyEnv: undefined };
    assert.deepEqual(resolveApiKeys({ ...defaults, env: { B_KEY: "b" } }), ["b"]);
    assert.deepEqual(resolveApiKeys({ ...defaults, env: { A_KEY: "a", B_KEY: "b" } }), ["a"]);
    assert.throws(() => resolveApiKeys({ ...defaults, env: {} }), /A_KEY or B_KEY/);
  });
});

describe("KeyPool", () => {
  it("hands out keys round-robin", () => {
    const pool = new KeyPool(["a", "b", "c"]);
    assert.deepEqual(
      Array.from({ length: 5 }, () => pool.acquire().client),
      ["a", "b", "c", "a", "b"],
    );
  });

  it("skips a cooling key until its Retry-After passes", () => {
    const time = fakeTime();
    const pool = new KeyPool(["a", "b"], { now: time.now });
    const first = pool.acquire();
    assert.equal(pool.markRateLimited(first.slot, 10_000), 0, "b is free, so no wait");
    assert.deepEqual([pool.acquire().client, pool.acquire().client], ["b", "b"]);
    time.advance(10_000);
    assert.deepEqual([pool.acquire().client, pool.acquire().client], ["a", "b"]);
  });

  it("throws a local retryable rate_limit with the wait when every key cools", () => {
    const time = fakeTime();
    const pool = new KeyPool(["a", "b"], { now: time.now });
    pool.markRateLimited(0, 8000);
    assert.equal(pool.markRateLimited(1, 3000), 3000);
    assert.throws(
      () => pool.acquire(),
      (e: unknown) =>
        e instanceof ProviderError && e.bucket === "rate_limit" && e.retryable && e.options.retryAfterMs === 3000,
    );
    time.advance(3000);
    assert.equal(pool.acquire().client, "b");
  });

  it("cools exponentially without Retry-After and resets on success", () => {
    const time = fakeTime();
    const pool = new KeyPool(["a"], { now: time.now, cooldownBaseMs: 100, cooldownMaxMs: 350 });
    assert.deepEqual(
      [pool.markRateLimited(0), pool.markRateLimited(0), pool.markRateLimited(0), pool.markRateLimited(0)],
      [100, 200, 350, 350],
    );
    pool.markSuccess(0);
    assert.equal(pool.markRateLimited(0), 100);
  });

  it("enforces a per-key rpm budget", () => {
    const time = fakeTime();
    const pool = new KeyPool(["a", "b"], { now: time.now, perKeyRpm: 2 });
    assert.deepEqual(
      Array.from({ length: 4 }, () => pool.acquire().client),
      ["a", "b", "a", "b"],
    );
    assert.throws(
      () => pool.acquire(),
      (e: unknown) => e instanceof ProviderError && e.options.retryAfterMs === 30_000,
    );
    time.advance(30_000);
    assert.equal(pool.acquire().client, "a");
  });
});
