// Ranking concordance tau_R over a benchmark's configurations (SafetyRepro §4 "Ranking
// concordance"; App. G reports it per benchmark with configuration-bootstrap ranges).
import { kendallTauBCoefficient } from "./rank-correlation.js";
import { assertScoreGrid, factorial, inducedOrdering, type ModelScoreGrid } from "./score-grid.js";

export interface RankConcordanceNull {
  models: number;
  /** E[tau_R] when each configuration's ranking is a uniformly random ordering: 0 by symmetry. */
  expectedTauR: number;
  /** Probability that two random total orderings differ: 1 - 1/M! (5/6 at M = 3). */
  totalOrderMismatch: number;
  /** Probability that one model pair is inverted between two random orderings: 1/2. */
  pairInversion: number;
}

export interface RankConcordance {
  configurations: number;
  models: number;
  /** Mean Kendall tau-b over the configuration pairs where it is defined; null when none is. */
  tauR: number | null;
  /** Configuration pairs averaged over. */
  pairsUsed: number;
  /** Pairs left out because one configuration ties every model (tau-b is 0/0 there). */
  pairsUndefined: number;
  /** Share of configuration pairs whose induced total orderings (alphabetical tie-break) differ. */
  totalOrderMismatchRate: number | null;
  null: RankConcordanceNull;
}

/**
 * tau_R: the average Kendall tau over every pair of configurations of the models' induced
 * rankings (§4). Ties are at average ranks, i.e. tau-b (kendallTauB, matching scipy), which is
 * unchanged by replacing scores with their mid-ranks.
 */
export function rankConcordance(grid: ModelScoreGrid): RankConcordance {
  const { configurations, models } = assertScoreGrid(grid);
  const orderings = grid.scores.map((row) => inducedOrdering(grid.models, row).join("\u0000"));
  let total = 0;
  let pairsUsed = 0;
  let pairsUndefined = 0;
  let mismatches = 0;
  for (let a = 0; a < configurations; a++) {
    for (let b = a + 1; b < configurations; b++) {
      if (orderings[a] !== orderings[b]) mismatches++;
      const tau = kendallTauBCoefficient(grid.scores[a], grid.scores[b]);
      if (Number.isFinite(tau)) {
        total += tau;
        pairsUsed++;
      } else pairsUndefined++;
    }
  }
  const pairs = (configurations * (configurations - 1)) / 2;
  return {
    configurations,
    models,
    tauR: pairsUsed > 0 ? total / pairsUsed : null,
    pairsUsed,
    pairsUndefined,
    totalOrderMismatchRate: pairs > 0 ? mismatches / pairs : null,
    null: rankConcordanceNull(models),
  };
}

/**
 * The uniform null of §4: every configuration ranks the M models in an independent, uniformly
 * random order. Reversing one ranking negates tau, so E[tau_R] = 0; two orderings coincide with
 * probability 1/M!; a given pair is inverted with probability 1/2.
 */
export function rankConcordanceNull(models: number): RankConcordanceNull {
  if (!(Number.isInteger(models) && models >= 2)) throw new RangeError(`need at least two models, got ${models}`);
  return { models, expectedTauR: 0, totalOrderMismatch: 1 - 1 / factorial(models), pairInversion: 0.5 };
}
