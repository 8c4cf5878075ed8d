// Pairwise rank flips over a benchmark's configuration envelope C_b (SafetyRepro §4 Prop. 1,
// §5.1 eq. (2), Tables 2-4): strict-sign counts, rho_flip, the D1/D2 conditions, the saturation
// ceiling, and how many distinct total orderings of the models the envelope reaches.
import { assertScoreGrid, factorial, inducedOrdering, type ModelScoreGrid, modelScores } from "./score-grid.js";

export interface StrictSignCounts {
  /** N+ = #{c : s(A, c) > s(B, c)} */
  nPlus: number;
  /** N- = #{c : s(A, c) < s(B, c)} */
  nMinus: number;
  /** N0 = #{c : s(A, c) = s(B, c)} */
  nZero: number;
}

export interface PairwiseFlip extends StrictSignCounts {
  /** |C_b| = N+ + N- + N0. */
  configurations: number;
  /** rho_flip = min(N+, N-) / |C_b| (eq. 2), the minority strict-sign mass. */
  rhoFlip: number;
  /**
   * 2 N+ N- / (|C|(|C|-1)): the share of configuration pairs on which (A, B) flips strict sign.
   * §5.1 calls rho_flip a lower bound of it; that holds when max(N+, N-) >= (|C|-1)/2 (always
   * without ties), but not in general: N+ = N- = 1, N0 = 2 gives 1/6 < rho_flip = 1/4.
   */
  pairDisagreement: number | null;
  /** (D1) strict-reversal identifiability: N+ = 0 or N- = 0 (equivalently rhoFlip = 0). */
  d1: boolean;
  /** (D2) full sign-verdict constancy: exactly one of N+, N-, N0 is non-zero. */
  d2: boolean;
  /** floor(|C|/2) / |C|, the largest value rhoFlip can take on |C| configurations (Prop. 1 iii). */
  ceiling: number;
  /** rhoFlip > 0 and at the ceiling: existence of a strict reversal, not its magnitude. */
  saturated: boolean;
}

/** Strict-sign counts (eq. 1) of A versus B over paired configurations. */
export function strictSignCounts(a: ArrayLike<number>, b: ArrayLike<number>): StrictSignCounts {
  if (a.length !== b.length) throw new RangeError(`score lists differ in length: ${a.length} vs ${b.length}`);
  let nPlus = 0;
  let nMinus = 0;
  let nZero = 0;
  for (let c = 0; c < a.length; c++) {
    if (a[c] > b[c]) nPlus++;
    else if (a[c] < b[c]) nMinus++;
    else if (a[c] === b[c]) nZero++;
    else throw new RangeError(`configuration ${c} has a non-comparable score`);
  }
  return { nPlus, nMinus, nZero };
}

/** rho_flip and the Prop. 1 conditions for one model pair (A, B) over the same configurations. */
export function pairwiseFlip(a: ArrayLike<number>, b: ArrayLike<number>): PairwiseFlip {
  const counts = strictSignCounts(a, b);
  const { nPlus, nMinus, nZero } = counts;
  const configurations = a.length;
  if (configurations === 0) throw new RangeError("no configurations");
  const minority = Math.min(nPlus, nMinus);
  const majorityHalf = Math.floor(configurations / 2);
  const nonZero = [nPlus, nMinus, nZero].filter((count) => count > 0).length;
  return {
    ...counts,
    configurations,
    rhoFlip: minority / configurations,
    pairDisagreement: configurations > 1 ? (2 * nPlus * nMinus) / (configurations * (configurations - 1)) : null,
    d1: nPlus === 0 || nMinus === 0,
    d2: nonZero === 1,
    ceiling: majorityHalf / configurations,
    saturated: minority > 0 && minority === majorityHalf,
  };
}

export interface ModelPairFlip extends PairwiseFlip {
  modelA: string;
  modelB: string;
}

export interface ReachedOrdering {
  /** Models best first (ties broken alphabetically). */
  ordering: string[];
  /** Configurations inducing it. */
  configurations: number;
}

export interface RankFlipSummary {
  configurations: number;
  models: string[];
  /** Every unordered model pair (A before B in roster order); rho_flip is symmetric in A, B. */
  pairs: ModelPairFlip[];
  /** rho_flip^max over the pairs (Table 2). */
  rhoFlipMax: number;
  /** Distinct induced total orderings, most frequent first (ties by first appearance). */
  orderings: ReachedOrdering[];
  /** M! possible total orderings of the M models. */
  possibleOrderings: number;
  /** orderings.length / M! (Table 2's "perm. rate"). */
  orderingRate: number;
}

/**
 * The §5.1 headline quantities of one benchmark's envelope: rho_flip per model pair from strict
 * counts, its maximum, and the distinct total orderings reached, where ties are broken
 * alphabetically (the only place the paper breaks ties).
 */
export function rankFlipSummary(grid: ModelScoreGrid): RankFlipSummary {
  const { configurations, models } = assertScoreGrid(grid);
  const pairs: ModelPairFlip[] = [];
  for (let i = 0; i < models; i++) {
    for (let j = i + 1; j < models; j++) {
      const flip = pairwiseFlip(modelScores(grid, i), modelScores(grid, j));
      pairs.push({ modelA: grid.models[i], modelB: grid.models[j], ...flip });
    }
  }
  const orderings = reachedOrderings(grid);
  const possibleOrderings = factorial(models);
  return {
    configurations,
    models: [...grid.models],
    pairs,
    rhoFlipMax: Math.max(...pairs.map((p) => p.rhoFlip)),
    orderings,
    possibleOrderings,
    orderingRate: orderings.length / possibleOrderings,
  };
}

/** Distinct induced total orderings over the configurations, with how many configurations reach each. */
export function reachedOrderings(grid: ModelScoreGrid): ReachedOrdering[] {
  const counts = new Map<string, ReachedOrdering>();
  for (const row of grid.scores) {
    const ordering = inducedOrdering(grid.models, row);
    const key = ordering.join("\u0000");
    const seen = counts.get(key);
    if (seen) seen.configurations++;
    else counts.set(key, { ordering, configurations: 1 });
  }
  // Map keeps insertion order and sort is stable, so equal counts stay in order of first appearance.
  return [...counts.values()].sort((a, b) => b.configurations - a.configurations);
}
