/** Shared pieces of the provider tests: a fake-clock resilience wrapper and failure capture. */
import assert from "node:assert/strict";
import type { Provider } from "../../src/contracts/provider.js";
import { ProviderError } from "../../src/core/errors.js";
import { type ResilienceOptions, withResilience } from "../../src/models/resilience.js";
import type { FakeTime } from "./mock-clock.js";

/** Retries, limits and timeouts on the fake clock, with the middle of the jitter range. */
export function withFakeResilience(raw: Provider, time: FakeTime, options: ResilienceOptions = {}): Provider {
  return withResilience(raw, { now: time.now, sleep: time.sleep, random: () => 0.5, ...options });
}

/** The ProviderError the promise rejects with; fails the test if it resolves or throws anything else. */
export async function providerFailure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the call to fail");
}
