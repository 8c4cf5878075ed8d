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

  it("fills integers in per-draw ranges as the same sequence as single draws (a shuffle's draws)", () => {
    const ranges = Int32Array.from({ length: 2000 }, (_, i) => [1, 2, 3, 4, 97, 2 ** 21][i % 6]);
    const single = RandomStream.fromSeed(9);
    const bulk = RandomStream.fromSeed(9);
    const out = new Int32Array(ranges.length);
    bulk.fillIntegersIn(out, ranges);
    assert.deepEqual(
      Array.from(out),
      Array.from(ranges, (n) => single.integer(n)),
      "the bulk values are integer(n)'s",
    );
    assert.equal(bulk.integer(5), single.integer(5), "the stream goes on where the fill left it");
    assert.throws(() => bulk.fillIntegersIn(new Int32Array(1), Int32Array.of(0)), RangeError);
    assert.throws(() => bulk.fillIntegersIn(new Int32Array(2), Int32Array.of(3)), RangeError);
  });

  it("draws cluster indices (fillDraws) in range with equal frequencies, for small and large ranges", () => {
    for (const n of [7, 2617, 16_384, 20_000]) {
      const out = new Int32Array(n === 7 ? 70_000 : 40 * n);
      RandomStream.fromSeed(3).fillDraws(out, n);
      assert.ok(
        out.every((v) => v >= 0 && v < n),
        `n = ${n}: every draw in [0, n)`,
      );
      const counts = new Array(n).fill(0);
      for (const v of out) counts[v]++;
      assert.ok(chiSquareGoodnessOfFit(counts).p > 1e-4, `n = ${n}: chi-square p ${chiSquareGoodnessOfFit(counts).p}`);
    }
    // Above 2^14 the draws are fillIntegers' sequence.
    const a = new Int32Array(100);
    const b = new Int32Array(100);
    RandomStream.fromSeed(5).fillDraws(a, 20_000);
    RandomStream.fromSeed(5).fillIntegers(b, 20_000);
    assert.deepEqual(a, b);
  });

  it("fillDraws: consecutive draws (chunks of one generator output) are uncorrelated", () => {
    const out = new Int32Array(60_000);
    RandomStream.fromSeed(11).fillDraws(out, 1000);
    const x = Array.from(out.subarray(0, -1));
    const y = Array.from(out.subarray(1));
    const mx = mean(x);
    const my = mean(y);
    let sxy = 0;
    for (let i = 0; i < x.length; i++) sxy += (x[i] - mx) * (y[i] - my);
    const r = sxy / ((x.length - 1) * standardDeviation(x) * standardDeviation(y));
    assert.ok(Math.abs(r) < 4 / Math.sqrt(x.length), `lag-1 correlation ${r}`);
  });

  it("sumDrawnRows sums the rows of the draws fillDraws makes, and leaves the stream at the same place", () => {
    for (const n of [1, 5, 2617, 20_000]) {
      const table = Float64Array.from({ length: n * 4 }, (_, i) => ((i * 7919) % 13) / 4);
      const summed = RandomStream.fromSeed(9);
      const drawn = RandomStream.fromSeed(9);
      for (let round = 0; round < 3; round++) {
        const count = n + round;
        const sums = new Float64Array(4);
        summed.sumDrawnRows(table, n, count, sums);
        const draws = new Int32Array(count);
        drawn.fillDraws(draws, n);
        const expected = [0, 1, 2, 3].map((j) => draws.reduce((total, k) => total + table[k * 4 + j], 0));
        assert.deepEqual(Array.from(sums), expected, `n = ${n}, round ${round}`);
      }
      assert.equal(summed.uniform(), drawn.uniform(), `n = ${n}: the streams go on alike`);
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
