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
import { pEquals } from "../../stats/p-value-text.js";

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
  /** The sensitivity analysis on incorrectly-guessed cases (blindingSensitivity), when computed. */
  sensitivity?: BlindingSensitivity | null;
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

/** A guessed case with the primary judge's outcome of its response (null: no score). */
export interface GuessedCase extends Guess {
  outcome: number | null;
}

/** Safe share of one configuration's guessed cases: all of them, and only the incorrectly guessed. */
export interface SensitivityRow {
  configuration: string;
  n: number;
  safe_rate: number | null;
  n_incorrect: number;
  safe_rate_incorrect: number | null;
  /** safe_rate_incorrect - safe_rate (null when either is undefined). */
  shift: number | null;
}

/**
 * The blinding sensitivity analysis (App. Q.2, step 4: "when blinding fails, a sensitivity
 * analysis on incorrectly-guessed cases is reported"). Blinding fails when the judge guesses the
 * configuration more often than chance (chi-square goodness of fit, p < alpha, correct share above
 * 1/k). The judged outcomes are then recomputed per configuration on the cases whose
 * configuration the judge did not identify (a wrong guess or "don't know"), beside the same rates
 * on all guessed cases: verdicts the judge gave without knowing the configuration cannot carry
 * that knowledge, so a shift between the two columns is what unblinding could have done.
 */
export interface BlindingSensitivity {
  failed: boolean;
  alpha: number;
  /** Why it was or was not computed. */
  note: string;
  rows: SensitivityRow[];
  /** Largest |shift| over the configurations with both rates defined. */
  max_abs_shift: number | null;
}

export function blindingSensitivity(
  cases: readonly GuessedCase[],
  check: GuessingCheck | null,
  configurations: readonly string[],
  alpha = 0.05,
): BlindingSensitivity | null {
  if (!check) return null;
  const failed = check.p < alpha && check.correct / check.n > check.chance;
  if (!failed) {
    return {
      failed,
      alpha,
      note: `blinding held (${pEquals(check.p)}): no sensitivity analysis needed`,
      rows: [],
      max_abs_shift: null,
    };
  }
  const rate = (group: readonly GuessedCase[]) => {
    const scored = group.filter((c) => c.outcome !== null);
    return scored.length === 0 ? null : scored.reduce((sum, c) => sum + (c.outcome ?? 0), 0) / scored.length;
  };
  const rows = configurations.map((configuration) => {
    const all = cases.filter((c) => c.truth === configuration);
    const incorrect = all.filter((c) => c.guess !== c.truth);
    const [safeAll, safeIncorrect] = [rate(all), rate(incorrect)];
    return {
      configuration,
      n: all.length,
      safe_rate: safeAll,
      n_incorrect: incorrect.length,
      safe_rate_incorrect: safeIncorrect,
      shift: safeAll === null || safeIncorrect === null ? null : safeIncorrect - safeAll,
    };
  });
  const shifts = rows.map((r) => r.shift).filter((s): s is number => s !== null);
  return {
    failed,
    alpha,
    note: `blinding failed (${check.correct}/${check.n} correct guesses vs chance ${check.chance.toFixed(3)}, ${pEquals(check.p)}): judged outcomes recomputed on the incorrectly-guessed cases`,
    rows,
    max_abs_shift: shifts.length === 0 ? null : Math.max(...shifts.map(Math.abs)),
  };
}
