/**
 * A printed p is never 0: below 1e-300 (where the upper tails underflow) it reads as the bound.
 * Checked on the formatter and on every surface that prints a family's omnibus p (terminal,
 * scorecard.md, the HTML report) with the p a chi2(3) of 2289.64 gives (ScaffoldSafety scale).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chiSquareSf, P_FLOOR, pEquals, pValue } from "../../src/stats/index.js";

describe("p value text", () => {
  it("prints decimals, exponents, and the bound below 1e-300, never zero", () => {
    assert.equal(pValue(0.0123), "0.012");
    assert.equal(pValue(3.4e-5), "3.4e-5");
    assert.equal(pValue(2.7e-12), "2.7e-12");
    assert.equal(pValue(1e-300), "1.0e-300");
    assert.equal(pValue(0), "< 1e-300");
    assert.equal(pValue(5e-324), "< 1e-300");
    assert.equal(pValue(null), "-");
    assert.equal(pEquals(0.0123), "p = 0.012");
    assert.equal(pEquals(0), "p < 1e-300");
    assert.equal(pEquals(0, "adjusted p"), "adjusted p < 1e-300");
    assert.equal(P_FLOOR, 1e-300);
  });

  it("a chi2(3) of 2289.64 underflows to p = 0 and prints as the bound", () => {
    const p = chiSquareSf(2289.64, 3);
    assert.ok(p < P_FLOOR, `the tail underflows below the floor: ${p}`);
    assert.equal(pEquals(p), "p < 1e-300");
    assert.doesNotMatch(pValue(p), /^0|e\+0/);
  });
});
