// Seeded random streams on pure-rand's xoroshiro128+. Every stochastic procedure takes a seed,
// so results are reproducible; parallel work gets independent streams by jumping the
// generator 2^64 steps ahead per stream instead of re-seeding (which could overlap).
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus, xoroshiro128plusFromState } from "pure-rand/generator/xoroshiro128plus";
import type { JumpableRandomGenerator } from "pure-rand/types/JumpableRandomGenerator";

const TWO_POW_32 = 4294967296;
/** 2^-32: multiplying by it is exact, so floor(m * it) is the high part of m. */
const TWO_POW_MINUS_32 = 2.3283064365386963e-10;
/** Largest n for which a 32-bit draw times n stays exact in a double (< 2^53). */
const LEMIRE_MAX_RANGE = 2 ** 21;
/** fillDraws maps 16-bit chunks; above 2^14 the rejections (up to n / 2^16 of them) stop paying. */
const CHUNK_RANGE = 65536;
export const CHUNK_MAX_RANGE = 2 ** 14;

export class RandomStream {
  private spareNormal: number | undefined;

  private constructor(private generator: JumpableRandomGenerator) {}

  /** A stream from an integer seed (the generator uses its low 32 bits). */
  static fromSeed(seed: number): RandomStream {
    if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
    return new RandomStream(xoroshiro128plus(seed));
  }

  /**
   * `count` non-overlapping streams for one seed: stream k starts k jumps (k * 2^64 draws)
   * after the seed's start. Stream k is the same whatever `count` is, so splitting work into
   * more or fewer workers does not change which numbers a given block of work sees.
   */
  static independentStreams(seed: number, count: number): RandomStream[] {
    const base = xoroshiro128plus(seed);
    const streams: RandomStream[] = [];
    for (let k = 0; k < count; k++) {
      streams.push(new RandomStream(base.clone()));
      base.jump();
    }
    return streams;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  uniform(): number {
    return uniformFloat64(this.generator);
  }

  /**
   * Uniform integer in [0, n), n <= 2^32, exactly equally likely (no modulo bias). For n up to
   * 2^21 this is Lemire's multiply-and-reject: with u a uniform 32-bit draw, m = u * n is exact
   * in a double, floor(m / 2^32) is the value, and draws whose low part m mod 2^32 falls below
   * (2^32 - n) mod n are rejected. Larger ranges reject above the largest multiple of n.
   */
  integer(n: number): number {
    if (!(n >= 1 && n <= TWO_POW_32 && Number.isInteger(n))) {
      throw new RangeError(`integer range must be an integer in [1, 2^32], got ${n}`);
    }
    if (n <= LEMIRE_MAX_RANGE) {
      const threshold = (TWO_POW_32 - n) % n;
      for (;;) {
        const m = (this.generator.next() >>> 0) * n;
        const value = Math.floor(m * TWO_POW_MINUS_32);
        if (m - value * TWO_POW_32 >= threshold) return value;
      }
    }
    const limit = Math.floor(TWO_POW_32 / n) * n;
    let draw = this.generator.next() >>> 0;
    while (draw >= limit) draw = this.generator.next() >>> 0;
    return draw % n;
  }

  /**
   * Fills `out` with uniform integers in [0, n), the same values as repeated integer(n): the hot
   * loop of the bootstrap. It runs pure-rand's xoroshiro128+ step on local variables, because
   * the per-draw object updates dominated the bootstrap, and moves the state in and out through
   * pure-rand's public getState/fromState, so this and next() stay one sequence (tested).
   */
  fillIntegers(out: Int32Array | Uint32Array, n: number): void {
    if (!(n >= 1 && n <= LEMIRE_MAX_RANGE && Number.isInteger(n))) {
      for (let i = 0; i < out.length; i++) out[i] = this.integer(n);
      return;
    }
    this.fillBounded(out, n);
  }

  /**
   * Fills `out[i]` with a uniform integer in [0, ranges[i]): the same values, in the same sequence,
   * as repeated integer(ranges[i]) (a Fisher-Yates shuffle's draws), with fillIntegers' local-state
   * loop. Every range must be an integer in [1, 2^21].
   */
  fillIntegersIn(out: Int32Array | Uint32Array, ranges: Int32Array | Uint32Array): void {
    if (ranges.length !== out.length) throw new RangeError("fillIntegersIn: one range per output");
    for (let i = 0; i < ranges.length; i++) {
      const n = ranges[i];
      if (!(n >= 1 && n <= LEMIRE_MAX_RANGE)) throw new RangeError(`integer range must be in [1, 2^21], got ${n}`);
    }
    this.fillBounded(out, ranges);
  }

  /** The local-state draw loop of fillIntegers (one range) and fillIntegersIn (a range per output). */
  private fillBounded(out: Int32Array | Uint32Array, range: number | Int32Array | Uint32Array): void {
    const fixed = typeof range === "number";
    let n = fixed ? range : 0;
    let threshold = fixed ? (TWO_POW_32 - n) % n : 0;
    let [s01, s00, s11, s10] = this.generator.getState();
    for (let i = 0; i < out.length; i++) {
      if (!fixed) {
        n = range[i];
        threshold = (TWO_POW_32 - n) % n;
      }
      let value: number;
      for (;;) {
        const m = ((s00 + s10) >>> 0) * n;
        const a0 = s10 ^ s00;
        const a1 = s11 ^ s01;
        const t00 = s00;
        const t01 = s01;
        s00 = (t00 << 24) ^ (t01 >>> 8) ^ a0 ^ (a0 << 16);
        s01 = (t01 << 24) ^ (t00 >>> 8) ^ a1 ^ ((a1 << 16) | (a0 >>> 16));
        s10 = (a1 << 5) ^ (a0 >>> 27);
        s11 = (a0 << 5) ^ (a1 >>> 27);
        value = Math.floor(m * TWO_POW_MINUS_32);
        if (m - value * TWO_POW_32 >= threshold) break;
      }
      out[i] = value;
    }
    this.generator = xoroshiro128plusFromState([s01, s00, s11, s10]);
  }

  /**
   * Fills `out` with uniform integers in [0, n): the cluster draws of the case-cluster bootstrap.
   * For n <= 2^14 each 64-bit generator output gives three candidates, its 16-bit chunks above
   * bit 16 (xoroshiro128+'s weak low bits are not used), each mapped by Lemire's
   * multiply-and-reject on 16 bits, which keeps every value exactly equally likely and needs only
   * 32-bit integer arithmetic. Larger n falls back to fillIntegers. A different sequence from
   * fillIntegers for the same seed; sumDrawnRows draws the same one.
   */
  fillDraws(out: Int32Array | Uint32Array, n: number): void {
    if (!(n >= 1 && n <= CHUNK_MAX_RANGE && Number.isInteger(n))) {
      this.fillIntegers(out, n);
      return;
    }
    const threshold = CHUNK_RANGE % n;
    let [s01, s00, s11, s10] = this.generator.getState();
    const length = out.length;
    let i = 0;
    while (i < length) {
      // The 64-bit sum s0 + s1 in 16-bit pieces (carries propagated), then one generator step.
      const low = (s00 & 0xffff) + (s10 & 0xffff);
      const mid = (s00 >>> 16) + (s10 >>> 16) + (low >>> 16);
      const high = (s01 & 0xffff) + (s11 & 0xffff) + (mid >>> 16);
      const top = (s01 >>> 16) + (s11 >>> 16) + (high >>> 16);
      const a0 = s10 ^ s00;
      const a1 = s11 ^ s01;
      const t00 = s00;
      const t01 = s01;
      s00 = (t00 << 24) ^ (t01 >>> 8) ^ a0 ^ (a0 << 16);
      s01 = (t01 << 24) ^ (t00 >>> 8) ^ a1 ^ ((a1 << 16) | (a0 >>> 16));
      s10 = (a1 << 5) ^ (a0 >>> 27);
      s11 = (a0 << 5) ^ (a1 >>> 27);
      let m = (mid & 0xffff) * n;
      if ((m & 0xffff) >= threshold) out[i++] = m >>> 16;
      if (i === length) break;
      m = (high & 0xffff) * n;
      if ((m & 0xffff) >= threshold) out[i++] = m >>> 16;
      if (i === length) break;
      m = (top & 0xffff) * n;
      if ((m & 0xffff) >= threshold) out[i++] = m >>> 16;
    }
    this.generator = xoroshiro128plusFromState([s01, s00, s11, s10]);
  }

  /**
   * Draws `count` rows of a row-major table of 4 columns (`table[k * 4 + j]`, rows 0 .. n - 1)
   * uniformly with replacement and writes the 4 column sums to `sums`: the bootstrap's inner loop
   * with the draws of fillDraws (the same sequence) summed as they are made, so that no draw is
   * stored and the running sums stay in registers. Falls back to fillDraws for n > 2^14.
   */
  sumDrawnRows(table: Float64Array, n: number, count: number, sums: Float64Array): void {
    if (!(n >= 1 && n <= CHUNK_MAX_RANGE && Number.isInteger(n)) || table.length < n * 4) {
      const draws = new Int32Array(count);
      this.fillDraws(draws, n);
      sumRows(table, draws, sums);
      return;
    }
    const threshold = CHUNK_RANGE % n;
    let [s01, s00, s11, s10] = this.generator.getState();
    let x0 = 0;
    let x1 = 0;
    let x2 = 0;
    let x3 = 0;
    let i = 0;
    while (i < count) {
      const low = (s00 & 0xffff) + (s10 & 0xffff);
      const mid = (s00 >>> 16) + (s10 >>> 16) + (low >>> 16);
      const high = (s01 & 0xffff) + (s11 & 0xffff) + (mid >>> 16);
      const top = (s01 >>> 16) + (s11 >>> 16) + (high >>> 16);
      const a0 = s10 ^ s00;
      const a1 = s11 ^ s01;
      const t00 = s00;
      const t01 = s01;
      s00 = (t00 << 24) ^ (t01 >>> 8) ^ a0 ^ (a0 << 16);
      s01 = (t01 << 24) ^ (t00 >>> 8) ^ a1 ^ ((a1 << 16) | (a0 >>> 16));
      s10 = (a1 << 5) ^ (a0 >>> 27);
      s11 = (a0 << 5) ^ (a1 >>> 27);
      let m = (mid & 0xffff) * n;
      if ((m & 0xffff) >= threshold) {
        const base = (m >>> 16) << 2;
        x0 += table[base];
        x1 += table[base + 1];
        x2 += table[base + 2];
        x3 += table[base + 3];
        if (++i === count) break;
      }
      m = (high & 0xffff) * n;
      if ((m & 0xffff) >= threshold) {
        const base = (m >>> 16) << 2;
        x0 += table[base];
        x1 += table[base + 1];
        x2 += table[base + 2];
        x3 += table[base + 3];
        if (++i === count) break;
      }
      m = (top & 0xffff) * n;
      if ((m & 0xffff) >= threshold) {
        const base = (m >>> 16) << 2;
        x0 += table[base];
        x1 += table[base + 1];
        x2 += table[base + 2];
        x3 += table[base + 3];
        i++;
      }
    }
    this.generator = xoroshiro128plusFromState([s01, s00, s11, s10]);
    sums[0] = x0;
    sums[1] = x1;
    sums[2] = x2;
    sums[3] = x3;
  }

  /** Standard normal draw (Marsaglia polar method; the second value of each pair is kept). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const spare = this.spareNormal;
      this.spareNormal = undefined;
      return spare;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.uniform() - 1;
      v = 2 * this.uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const factor = Math.sqrt((-2 * Math.log(s)) / s);
    this.spareNormal = v * factor;
    return u * factor;
  }

  /** Bernoulli(p) draw as 0/1. */
  bernoulli(p: number): number {
    return this.uniform() < p ? 1 : 0;
  }

  /** Binomial(n, p) draw as a sum of n Bernoulli draws (exact; O(n), meant for simulations). */
  binomial(n: number, p: number): number {
    let successes = 0;
    for (let i = 0; i < n; i++) successes += this.uniform() < p ? 1 : 0;
    return successes;
  }
}

/** Column sums of the rows `draws` of a row-major 4-column table. */
function sumRows(table: Float64Array, draws: Int32Array, sums: Float64Array): void {
  let x0 = 0;
  let x1 = 0;
  let x2 = 0;
  let x3 = 0;
  for (let i = 0; i < draws.length; i++) {
    const base = draws[i] << 2;
    x0 += table[base];
    x1 += table[base + 1];
    x2 += table[base + 2];
    x3 += table[base + 3];
  }
  sums[0] = x0;
  sums[1] = x1;
  sums[2] = x2;
  sums[3] = x3;
}

/**
 * A plain seeded source for the model-level resampling (the G-study bootstrap, the specification
 * curve's permutations) on the same generator. Its integer and normal draws are pure-rand's
 * `uniformInt` and Box-Muller rather than RandomStream's, so those analyses keep their numbers.
 */
export interface SeededRandom {
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Uniform double in [0, 1). */
  uniform(): number;
  /** Standard normal draw (Box-Muller). */
  normal(): number;
  /** A uniformly random permutation of `items` (Fisher-Yates; the input is not modified). */
  shuffle<T>(items: readonly T[]): T[];
}

export function seededRandom(seed: number): SeededRandom {
  const generator = xoroshiro128plus(seed);
  const int = (n: number) => uniformInt(generator, 0, n - 1);
  const uniform = () => uniformFloat64(generator);
  return {
    int,
    uniform,
    normal() {
      // 1 - u is in (0, 1], so the logarithm is finite.
      return Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
    },
    shuffle<T>(items: readonly T[]): T[] {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}
