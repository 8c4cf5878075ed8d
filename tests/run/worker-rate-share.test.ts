/**
 * A declared rate limit is per API key: N workers sharing the key each keep 1/N of it (rpm,
 * tpm and the model's concurrency, at least one), so together they stay within the limit.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { workerRateLimit } from "../../src/run/prepare/model-runtimes.js";

test("each of N workers keeps 1/N of the declared rate limit", () => {
  const limit = { rpm: 600, tpm: 90_000, concurrency: 10 };
  for (const share of [2, 3, 4]) {
    const part = workerRateLimit(limit, share)!;
    assert.equal(part.rpm! * share, limit.rpm);
    assert.equal(part.tpm! * share, limit.tpm);
    assert.ok(
      part.concurrency! * share <= limit.concurrency,
      "expected part.concurrency! * share <= limit.concurrency",
    );
    assert.ok(part.concurrency! >= 1, "expected part.concurrency! >= 1");
  }
  assert.deepEqual(workerRateLimit({ concurrency: 2 }, 4), { concurrency: 1 }, "never below one call in flight");
  assert.deepEqual(workerRateLimit({ rpm: 60 }, 4), { rpm: 15 }, "undeclared limits stay undeclared");
  assert.equal(workerRateLimit(limit, 1), limit);
  assert.equal(workerRateLimit(undefined, 4), undefined);
});
