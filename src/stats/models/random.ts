// A tiny seeded random source (xoroshiro128+ from pure-rand) for bootstrap and permutations.
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";

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
