/**
 * keptOrSame (src/core/kept-or-same.ts) gives what `filter` gives, and the list itself when every
 * value is kept: the analysis's populations and study families share the table's row list then.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keptOrSame } from "../../src/core/kept-or-same.js";
import { seededRandom } from "../../src/stats/random.js";

describe("keptOrSame", () => {
  it("gives the list itself when every value is kept", () => {
    const values = [3, 1, 4, 1, 5];
    assert.equal(
      keptOrSame(values, () => true),
      values,
      "the same list, not a copy",
    );
    const empty: number[] = [];
    assert.equal(
      keptOrSame(empty, () => false),
      empty,
      "an empty list keeps all of its none",
    );
  });

  it("gives a list of its own, as filter does, when any value is left out, and leaves the input as it was", () => {
    const random = seededRandom(20261130);
    for (let round = 0; round < 500; round++) {
      const length = random.int(40);
      const values = Array.from({ length }, () => random.int(10));
      // Rounds where every value is kept, where none is, and mixes, with the first drop anywhere.
      const cut = round % 3 === 0 ? 10 : round % 3 === 1 ? -1 : random.int(10);
      const keep = (v: number) => v < cut;
      const before = [...values];
      const kept = keptOrSame(values, keep);
      assert.deepEqual(kept, values.filter(keep), `round ${round}: the values filter keeps, in order`);
      assert.deepEqual(values, before, `round ${round}: the input is unchanged`);
      const all = values.every(keep);
      assert.equal(kept === values, all, `round ${round}: the same list exactly when every value is kept`);
    }
  });
});
