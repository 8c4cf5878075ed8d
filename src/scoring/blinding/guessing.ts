/**
 * The blinding check (App. Q.2, step 4): judges guess which configuration produced a response.
 * - chi-square goodness of fit of (correct, incorrect) guesses against chance 1/k;
 * - Bang's Blinding Index (Bang et al., 2004) per arm: BI = (2 * c/(c + w) - 1) * (c + w)/n
 *   for two arms, where c and w are correct and wrong guesses and n includes "don't know"
 *   (an unparseable or missing guess). With k > 2 configurations the same form is generalised
 *   by chance-correcting the correct share: BI = ((c/(c + w) - 1/k) / (1 - 1/k)) * (c + w)/n,
 *   which equals Bang's index at k = 2. BI near 0: blinding held; 1: every response identified;
 *   negative: systematic wrong guessing. The overall index pools all arms the same way.
 */
import { chiSquareGoodnessOfFit } from "../../stats/goodness-of-fit.js";

export interface Guess {
  /** The configuration that produced the response. */
  truth: string;
  /** The judge's guess, or null for "don't know" / unparseable. */
  guess: string | null;
}

export interface GuessingCheck {
  n: number;
  correct: number;
  chance: number;
  chi2: number;
  p: number;
  bang_bi: { overall: number | null; per_arm: Record<string, number | null>; dont_know: number; arms: number };
}

export function guessingCheck(guesses: readonly Guess[], configurations: readonly string[]): GuessingCheck | null {
  const k = configurations.length;
  if (k < 2 || guesses.length === 0) return null;
  const chance = 1 / k;
  const correct = guesses.filter((g) => g.guess === g.truth).length;
  const gof = chiSquareGoodnessOfFit([correct, guesses.length - correct], [chance, 1 - chance]);
  const perArm: Record<string, number | null> = {};
  for (const arm of configurations)
    perArm[arm] = bangIndex(
      guesses.filter((g) => g.truth === arm),
      chance,
    );
  return {
    n: guesses.length,
    correct,
    chance,
    chi2: gof.statistic,
    p: gof.p,
    bang_bi: {
      overall: bangIndex(guesses, chance),
      per_arm: perArm,
      dont_know: guesses.filter((g) => g.guess === null).length,
      arms: k,
    },
  };
}

/** Bang's index of one group of guesses (chance-corrected for k arms); null without any guess. */
export function bangIndex(guesses: readonly Guess[], chance: number): number | null {
  const n = guesses.length;
  const answered = guesses.filter((g) => g.guess !== null);
  if (n === 0 || answered.length === 0) return null;
  const share = answered.filter((g) => g.guess === g.truth).length / answered.length;
  return ((share - chance) / (1 - chance)) * (answered.length / n);
}
