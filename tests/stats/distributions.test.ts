import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  betaQuantile,
  binomialCdf,
  binomialPmf,
  binomialSf,
  chiSquareCdf,
  chiSquareQuantile,
  chiSquareSf,
  fQuantile,
  fSf,
  normalCdf,
  normalQuantile,
  normalSf,
  tCdf,
  tQuantile,
  tSf,
} from "../../src/stats/index.js";

const close = (actual: number, expected: number, rtol = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= rtol * Math.abs(expected), `${actual} vs ${expected}`);

describe("distributions", () => {
  it("computes upper tails directly, not as 1 - cdf", () => {
    // 1 - Phi(10) is 0 in double precision; the direct tail keeps 7.6e-24.
    assert.equal(1 - normalCdf(10), 0);
    close(normalSf(10), 7.619853024160525e-24, 1e-12);
    assert.ok(chiSquareSf(400, 1) > 0, "expected chiSquareSf(400, 1) > 0");
    assert.ok(tSf(40, 5) > 0 && tSf(40, 5) < 1e-6, "expected tSf(40, 5) > 0 && tSf(40, 5) < 1e-6");
    assert.ok(fSf(500, 3, 200) > 0, "expected fSf(500, 3, 200) > 0");
    assert.ok(
      binomialSf(95, 100, 0.5) > 0 && binomialSf(95, 100, 0.5) < 1e-20,
      "expected binomialSf(95, 100, 0.5) > 0 && binomialSf(95, 100, 0.5) < 1e-20",
    );
  });

  it("keeps cdf + sf = 1 and the known closed forms", () => {
    for (const x of [0.1, 1, 3.7, 12]) {
      close(chiSquareCdf(x, 3) + chiSquareSf(x, 3), 1, 1e-14);
      close(chiSquareSf(x, 2), Math.exp(-x / 2), 1e-13); // chi-square with 2 df is exponential
      close(tCdf(x, 7) + tSf(x, 7), 1, 1e-14);
    }
    close(tCdf(1, 1), 0.75, 1e-14); // Cauchy: 1/2 + atan(1)/pi
    close(fSf(2.5 ** 2, 1, 9), 2 * tSf(2.5, 9), 1e-12); // F(1, d) = t(d)^2
  });

  it("binomial cdf equals the summed pmf", () => {
    for (const [k, n, p] of [
      [3, 20, 0.5],
      [7, 15, 0.3],
      [0, 10, 0.9],
    ]) {
      let total = 0;
      for (let j = 0; j <= k; j++) total += binomialPmf(j, n, p);
      close(binomialCdf(k, n, p), total, 1e-12);
      close(binomialCdf(k, n, p) + binomialSf(k, n, p), 1, 1e-14);
    }
    assert.equal(binomialCdf(-1, 5, 0.5), 0);
    assert.equal(binomialCdf(5, 5, 0.5), 1);
  });

  it("quantiles invert the cdf, including far tails", () => {
    for (const p of [1e-300, 1e-20, 1e-6, 0.025, 0.3, 0.5, 0.8, 0.975, 1 - 1e-12]) {
      const x = normalQuantile(p);
      close(p < 0.5 ? normalCdf(x) : normalSf(x), p < 0.5 ? p : 1 - p, 1e-13);
    }
    for (const df of [1, 2.5, 10, 1e6]) close(tCdf(tQuantile(0.01, df), df), 0.01, 1e-13);
    for (const df of [1, 4, 30]) close(chiSquareSf(chiSquareQuantile(0.95, df), df), 0.05, 1e-13);
    close(fSf(fQuantile(0.95, 3, 40), 3, 40), 0.05, 1e-10);
    close(normalQuantile(0.975), 1.959963984540054, 1e-15);
    assert.equal(normalQuantile(0), Number.NEGATIVE_INFINITY);
    assert.throws(() => normalQuantile(1.5), RangeError);
  });

  it("beta quantile inverts the regularized incomplete beta", () => {
    // Beta(1, 1) is uniform; Beta(a, 1) has cdf x^a.
    close(betaQuantile(0.3, 1, 1), 0.3, 1e-13);
    close(betaQuantile(0.2, 3, 1), 0.2 ** (1 / 3), 1e-13);
  });
});
