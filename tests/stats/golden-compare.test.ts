import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareToExpected, parseTolerance, toleranceFor, withinTolerance } from "./golden/compare.js";

const strict = parseTolerance({ rtol: 1e-9, atol: 1e-12, rule: "..." });

describe("golden comparison", () => {
  it("applies |a - e| <= atol + rtol |e|", () => {
    const tol = { rtol: 1e-6, atol: 1e-9 };
    assert.ok(withinTolerance(1 + 1e-6, 1, tol), "expected withinTolerance(1 + 1e-6, 1, tol)");
    assert.ok(!withinTolerance(1 + 1.1e-6 + 1e-9, 1, tol), "expected !withinTolerance(1 + 1.1e-6 + 1e-9, 1, tol)");
    assert.ok(withinTolerance(5e-10, 0, tol), "expected withinTolerance(5e-10, 0, tol)");
    assert.ok(!withinTolerance(Number.NaN, 0, tol), "expected !withinTolerance(Number.NaN, 0, tol)");
    assert.ok(
      withinTolerance(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, tol),
      "expected withinTolerance(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, tol)",
    );
  });

  it("passes an exact match and counts every numeric leaf", () => {
    const expected = { a: 1, b: [1, 2, { c: 3 }], d: { e: 0.5 } };
    const report = compareToExpected(expected, structuredClone(expected), strict);
    assert.equal(report.mismatches.length, 0);
    assert.equal(report.compared, 5);
  });

  it("fails a value just outside tolerance and names its path", () => {
    const report = compareToExpected({ r: [{ p: 0.05 }] }, { r: [{ p: 0.05 * (1 + 2e-9) }] }, strict);
    assert.equal(report.mismatches.length, 1);
    assert.equal(report.mismatches[0].path, "r[0].p");
  });

  it("treats a missing field as a mismatch", () => {
    const report = compareToExpected({ a: 1, b: 2 }, { a: 1 }, strict);
    assert.deepEqual(
      report.mismatches.map((m) => [m.path, m.reason]),
      [["b", "missing field"]],
    );
  });

  it("matches null only with null, undefined or NaN, and the key must exist", () => {
    assert.equal(compareToExpected({ nnh: null }, { nnh: null }, strict).mismatches.length, 0);
    assert.equal(compareToExpected({ nnh: null }, { nnh: undefined }, strict).mismatches.length, 0);
    assert.equal(compareToExpected({ nnh: null }, { nnh: Number.NaN }, strict).mismatches.length, 0);
    assert.equal(compareToExpected({ nnh: null }, { nnh: 3 }, strict).mismatches.length, 1);
    assert.equal(compareToExpected({ nnh: null }, {}, strict).mismatches.length, 1);
    assert.equal(compareToExpected({ ci: [1, 2] }, { ci: null }, strict).mismatches.length, 1);
  });

  it("rejects a number where null or another type is expected", () => {
    assert.equal(compareToExpected({ x: 1 }, { x: "1" }, strict).mismatches.length, 1);
    assert.equal(compareToExpected({ x: 1 }, { x: null }, strict).mismatches.length, 1);
  });

  it("compares booleans and strings exactly", () => {
    assert.equal(compareToExpected({ ok: true, m: "exact" }, { ok: true, m: "exact" }, strict).mismatches.length, 0);
    assert.equal(compareToExpected({ ok: true }, { ok: false }, strict).mismatches.length, 1);
    assert.equal(compareToExpected({ m: "exact" }, { m: "asymptotic" }, strict).mismatches.length, 1);
  });

  it("requires arrays of the expected length (typed arrays allowed)", () => {
    assert.equal(compareToExpected({ v: [1, 2] }, { v: Float64Array.of(1, 2) }, strict).mismatches.length, 0);
    assert.equal(compareToExpected({ v: [1, 2] }, { v: [1, 2, 3] }, strict).mismatches.length, 1);
    assert.equal(compareToExpected({ v: [1, 2] }, { v: 1 }, strict).mismatches.length, 1);
  });

  it("ignores extra fields of the actual result", () => {
    assert.equal(compareToExpected({ a: 1 }, { a: 1, extra: 99 }, strict).mismatches.length, 0);
  });

  it("resolves per-group tolerances listed by top-level key", () => {
    const spec = parseTolerance({
      cdf: { groups: ["norm_cdf"], rtol: 1e-8, atol: 1e-300 },
      quantile: { groups: ["norm_ppf"], rtol: 1e-8, atol: 1e-12 },
    });
    assert.deepEqual(toleranceFor(spec, ["norm_cdf", "value"]), { rtol: 1e-8, atol: 1e-300 });
    assert.deepEqual(toleranceFor(spec, ["norm_ppf", "value"]), { rtol: 1e-8, atol: 1e-12 });
    // A tail probability 1e-268 off by 1e-6 relative must fail even though it is tiny in absolute terms.
    const report = compareToExpected({ norm_cdf: [{ value: 1e-268 }] }, { norm_cdf: [{ value: 1.000001e-268 }] }, spec);
    assert.equal(report.mismatches.length, 1);
  });

  it("resolves groups named after path keys, deepest match first, and skips uncovered leaves", () => {
    const spec = parseTolerance({
      fixed_effects: { atol: 0.002, rtol: 0 },
      se: { rtol: 0.002, atol: 0 },
      p: { rtol: 0.05, atol: 1e-6 },
      lrt_p: { rtol: 0.01, atol: 1e-12 },
      aic_bic: { atol: 0.002, rtol: 0 },
    });
    assert.deepEqual(toleranceFor(spec, ["m0", "fixed_effects", "estimate"]), { atol: 0.002, rtol: 0 });
    assert.deepEqual(toleranceFor(spec, ["m0", "fixed_effects", "se"]), { rtol: 0.002, atol: 0 });
    assert.deepEqual(toleranceFor(spec, ["lrt_m0_vs_m1", "p"]), { rtol: 0.01, atol: 1e-12 });
    assert.deepEqual(toleranceFor(spec, ["m1", "bic"]), { atol: 0.002, rtol: 0 });
    assert.equal(toleranceFor(spec, ["m0", "optimizer_fits_vs_reference", "loglik_diff"]), undefined);
    const report = compareToExpected(
      { m0: { aic: 10, n_obs: 5, diag: { note: "NOT targets: other fits", loglik: 1 } } },
      { m0: { aic: 10.001 } },
      spec,
    );
    assert.equal(report.mismatches.length, 0);
    assert.equal(report.compared, 1);
    assert.deepEqual(report.skipped, ["m0.n_obs", "m0.diag"]);
  });

  it("rejects a tolerance object with neither rtol/atol nor groups", () => {
    assert.throws(() => parseTolerance({ rule: "?" }));
  });
});
