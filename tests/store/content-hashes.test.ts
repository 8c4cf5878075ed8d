import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { hashValue, sha256 } from "../../src/core/hash.js";
import { textKey } from "../../src/run/store/texts.js";

// Stores, manifests and item samples are keyed by these digests: they must never change.
describe("content hashes", () => {
  it("sha256 gives the standard digests (FIPS 180-2 test vectors)", () => {
    assert.equal(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "'abc'");
    assert.equal(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "the empty text");
  });

  it("sha256 hashes a text's UTF-8 bytes, as a Hash object does", () => {
    for (const text of ["héllo wörld", "日本語のテキスト", "emoji 🙂 and \u0000 nul", "a".repeat(100_000)]) {
      assert.equal(sha256(text), createHash("sha256").update(text, "utf8").digest("hex"), text.slice(0, 20));
    }
  });

  it("hashValue hashes the canonical JSON (keys sorted at every depth)", () => {
    assert.equal(hashValue({ b: 1, a: [{ d: 2, c: 3 }] }), sha256('{"a":[{"c":3,"d":2}],"b":1}'), "sorted keys");
  });

  it("a stored text's key is the first 12 bytes of its sha256, in base64url", () => {
    const text = "A prompt with ünïcode and a long tail ".repeat(20);
    const expected = createHash("sha256").update(text, "utf8").digest().subarray(0, 12).toString("base64url");
    assert.equal(textKey(text), expected, "text key");
    assert.equal(textKey(text).length, 16, "12 bytes are 16 base64url characters");
  });
});
