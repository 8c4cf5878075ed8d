import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clearSecrets, registerSecrets, scrubSecrets } from "../../src/core/secrets.js";
import { httpError, parseDurationSeconds, parseRetryAfter } from "../../src/models/errors.js";

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

describe("scrubSecrets (the one scrubber of errors, the store and the terminal)", () => {
  it("removes every occurrence of every registered key, in each of its encodings", () => {
    const keys = ['sk-abc123/+x"y', "zz99999999"];
    registerSecrets(keys);
    try {
      assert.equal(
        scrubSecrets('key sk-abc123/+x"y and sk-abc123/+x"y and zz99999999'),
        "key [redacted] and [redacted] and [redacted]",
      );
      const [key] = keys;
      const hex = Buffer.from(key).toString("hex");
      const encodings = {
        url: encodeURIComponent(key),
        json: JSON.stringify(key).slice(1, -1),
        hex,
        HEX: hex.toUpperCase(),
        "hex inside a longer dump": Buffer.from(`prefix ${key} suffix`).toString("hex"),
      };
      for (const [name, text] of Object.entries(encodings)) {
        assert.match(scrubSecrets(`body: ${text}.`), /\[redacted\]/, name);
      }
      // base64 and base64url of the key at each byte offset inside a longer blob.
      for (const prefix of ["", "a", "ab"]) {
        for (const suffix of ["", "z", "zz"]) {
          const blob = Buffer.from(`${prefix}${key}${suffix}`);
          for (const encoding of ["base64", "base64url"] as const) {
            const scrubbed = scrubSecrets(`x=${blob.toString(encoding)}`);
            assert.match(scrubbed, /\[redacted\]/, `${encoding} of '${prefix}KEY${suffix}'`);
          }
        }
      }
      assert.equal(scrubSecrets("nothing secret here"), "nothing secret here");
    } finally {
      clearSecrets();
    }
  });
});
