/** The word patterns of the list perturbations: built on first use, then reused. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { lazyWordPattern, wordPattern } from "../../src/perturb/text.js";

describe("lazyWordPattern", () => {
  test("reads its word list only on first use and matches as wordPattern does", () => {
    const words = ["father", "grandfather", "mother"];
    let reads = 0;
    const pattern = lazyWordPattern(() => {
      reads++;
      return words;
    });
    assert.equal(reads, 0);
    const text = "My grandfather and my Mother met a stepfather.";
    const expected = [...text.matchAll(wordPattern(words))].map((m) => m[0]);
    assert.deepEqual(
      [...text.matchAll(pattern())].map((m) => m[0]),
      expected,
    );
    assert.deepEqual(expected, ["grandfather", "Mother"]);
    assert.equal(pattern(), pattern());
    assert.equal(reads, 1);
  });
});
