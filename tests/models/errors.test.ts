import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { httpError, parseDurationSeconds, parseRetryAfter, redact } from "../../src/models/errors.js";

const headers = (h: Record<string, string>) => new Headers(h);
const NOW = Date.parse("2030-01-01T00:00:00Z");

describe("parseRetryAfter", () => {
  it("reads delta-seconds, HTTP dates and retry-after-ms", () => {
    assert.equal(parseRetryAfter(headers({ "retry-after": "7" }), NOW), 7000);
    assert.equal(parseRetryAfter(headers({ "retry-after": "0.5" }), NOW), 500);
    assert.equal(parseRetryAfter(headers({ "retry-after": "Tue, 01 Jan 2030 00:01:00 GMT" }), NOW), 60_000);
    assert.equal(parseRetryAfter(headers({ "retry-after": "Mon, 31 Dec 2029 23:00:00 GMT" }), NOW), 0, "past date");
    assert.equal(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }), NOW), 250);
  });

  it("ignores absent or garbage values", () => {
    assert.equal(parseRetryAfter(headers({}), NOW), undefined);
    assert.equal(parseRetryAfter(headers({ "retry-after": "soon" }), NOW), undefined);
    assert.equal(parseRetryAfter(undefined, NOW), undefined);
  });

  it("reads Google RetryInfo durations", () => {
    assert.equal(parseDurationSeconds("30s"), 30_000);
    assert.equal(parseDurationSeconds("1.5s"), 1500);
    assert.equal(parseDurationSeconds("soon"), undefined);
    assert.equal(parseDurationSeconds(undefined), undefined);
  });
});

describe("httpError", () => {
  it("maps statuses to buckets and retryability", () => {
    const cases: Array<[number, string, boolean]> = [
      [429, "rate_limit", true],
      [408, "timeout", true],
      [504, "timeout", true],
      [500, "provider_error", true],
      [529, "provider_error", true],
      [400, "provider_error", false],
      [401, "auth", false],
      [403, "auth", false],
      [404, "provider_error", false],
    ];
    for (const [status, bucket, retryable] of cases) {
      const e = httpError({ provider: "p", status, message: `${status} boom` });
      assert.equal(e.bucket, bucket, String(status));
      assert.equal(e.retryable, retryable, String(status));
      assert.equal(e.message, `p: HTTP ${status}: boom`);
    }
  });
});

describe("redact", () => {
  it("removes every occurrence of every secret", () => {
    assert.equal(
      redact("key sk-abc123 and sk-abc123 and zz9999", ["sk-abc123", "zz9999"]),
      "key [redacted] and [redacted] and [redacted]",
    );
  });
});
