import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chiSquareGoodnessOfFit, mean, RandomStream, standardDeviation } from "../../src/stats/index.js";

function draws(stream: RandomStream, count: number, draw: (s: RandomStream) => number): number[] {
  return Array.from({ length: count }, () => draw(stream));
}

describe("seeded random streams", () => {
  it("reproduce the same numbers from the same seed", () => {
    const a = draws(RandomStream.fromSeed(42), 20, (s) => s.uniform());
    const b = draws(RandomStream.fromSeed(42), 20, (s) => s.uniform());
    const c = draws(RandomStream.fromSeed(43), 20, (s) => s.uniform());
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });

  it("give independent streams that do not depend on how many are requested", () => {
    const [first, second] = RandomStream.independentStreams(7, 2);
    const third = RandomStream.independentStreams(7, 5)[1];
    const x = draws(first, 1000, (s) => s.uniform());
    const y = draws(second, 1000, (s) => s.uniform());
    assert.deepEqual(
      draws(third, 1000, (s) => s.uniform()),
      y,
    );
    assert.notDeepEqual(x, y);
    // Uncorrelated: |r| < 4/sqrt(1000) is a >4 SD bound under independence.
    const mx = mean(x);
    const my = mean(y);
    let sxy = 0;
    for (let i = 0; i < x.length; i++) sxy += (x[i] - mx) * (y[i] - my);
    const r = sxy / ((x.length - 1) * standardDeviation(x) * standardDeviation(y));
    assert.ok(Math.abs(r) < 4 / Math.sqrt(1000), `r = ${r}`);
  });

  it("draws uniform integers in range with equal frequencies", () => {
    const stream = RandomStream.fromSeed(1);
    const counts = new Array(7).fill(0);
    const out = new Int32Array(70_000);
    stream.fillIntegers(out, 7);
    for (const v of out) counts[v]++;
    assert.ok(
      out.every((v) => v >= 0 && v < 7),
      "expected out.every((v) => v >= 0 && v < 7)",
    );
    assert.ok(chiSquareGoodnessOfFit(counts).p > 1e-4, `counts ${counts}`);
    assert.throws(() => stream.integer(0), RangeError);
  });

  it("bulk integer fills continue the same sequence as single draws", () => {
    // integer() goes through pure-rand's next(); fillIntegers runs the recurrence on locals.
    for (const n of [7, 2617, 1_000_003, 3_000_000_000]) {
      const single = RandomStream.fromSeed(42);
      const bulk = RandomStream.fromSeed(42);
      const out = new Uint32Array(500);
      bulk.fillIntegers(out, n);
      const expected = Array.from({ length: 500 }, () => single.integer(n));
      assert.deepEqual(Array.from(out), expected);
      // ... and the stream goes on where the bulk fill left it.
      assert.equal(bulk.integer(n), single.integer(n));
      assert.equal(bulk.uniform(), single.uniform());
    }
  });

  it("draws standard normals with mean 0 and SD 1", () => {
    const z = draws(RandomStream.fromSeed(5), 40_000, (s) => s.normal());
    assert.ok(Math.abs(mean(z)) < 4 / Math.sqrt(z.length), "expected Math.abs(mean(z)) < 4 / Math.sqrt(z.length)");
    assert.ok(
      Math.abs(standardDeviation(z) - 1) < 4 * Math.sqrt(0.5 / z.length),
      "expected Math.abs(standardDeviation(z) - 1) < 4 * Math.sqrt(0.5 / z.length)",
    );
  });

  it("draws binomials with mean np", () => {
    const x = draws(RandomStream.fromSeed(9), 4000, (s) => s.binomial(50, 0.3));
    assert.ok(
      Math.abs(mean(x) - 15) < 4 * Math.sqrt((50 * 0.3 * 0.7) / x.length),
      "expected Math.abs(mean(x) - 15) < 4 * Math.sqrt((50 * 0.3 * 0.7) / x.length)",
    );
  });
});
