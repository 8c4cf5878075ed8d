// Paired-configuration effects of one axis switched with everything else held fixed: the
// scoring path (SafetyRepro §5.2 / App. V, Fig. 4) and quantization (§3, App. O).
import { mean, quantiles } from "./descriptive.js";
import { inducedOrdering } from "./score-grid.js";

export interface AbsoluteGapSummary {
  /** Paired configurations. */
  n: number;
  median: number;
  mean: number;
  max: number;
  /** Index (into the pairs given) of the largest gap; the first one on a tie. */
  argMax: number;
}

/** Median, mean and max of |a_i - b_i| over paired scores. */
export function absoluteGapSummary(a: ArrayLike<number>, b: ArrayLike<number>): AbsoluteGapSummary {
  if (a.length !== b.length) throw new RangeError(`paired lists differ in length: ${a.length} vs ${b.length}`);
  if (a.length === 0) throw new RangeError("no paired configurations");
  const gaps = Float64Array.from({ length: a.length }, (_, i) => Math.abs(a[i] - b[i]));
  if (gaps.some((g) => !Number.isFinite(g))) throw new RangeError("a paired score is not finite");
  let argMax = 0;
  for (let i = 1; i < gaps.length; i++) if (gaps[i] > gaps[argMax]) argMax = i;
  const [median] = quantiles(gaps, [0.5]);
  return { n: gaps.length, median, mean: mean(gaps), max: gaps[argMax], argMax };
}

/**
 * Scoring-method effect of one (model, benchmark): mean and max |free-form - logprob| over the
 * greedy configurations matched on everything but the scoring path (App. V; Fig. 4 shows the
 * mean, the text the max, e.g. 0.468 on Qwen / TruthfulQA). Matching is the caller's: element i
 * of both lists must be the same (template, few-shot) at greedy decoding.
 */
export function scoringMethodEffect(freeForm: ArrayLike<number>, logprob: ArrayLike<number>): AbsoluteGapSummary {
  return absoluteGapSummary(freeForm, logprob);
}

/**
 * Quantization effect: median, mean and max |s_a - s_b| over configurations paired across two
 * precisions of the same model (App. O: NF4 vs BF16, median 1.7 pp, mean 2.6, max 20.7).
 */
export function quantizationEffect(precisionA: ArrayLike<number>, precisionB: ArrayLike<number>): AbsoluteGapSummary {
  return absoluteGapSummary(precisionA, precisionB);
}

export interface PairedCellOrdering {
  /** Scores of every model in the cell under precision A (same model order as `models`). */
  scoresA: readonly number[];
  /** Scores of the same models in the same cell under precision B. */
  scoresB: readonly number[];
}

export interface OrderingAgreement {
  cells: number;
  /** Cells whose induced total orderings are identical under both precisions. */
  matching: number;
  /** matching / cells (App. O: 17/18 = 94.4%). */
  rate: number;
  /** Per cell, the model pairs whose strict order reverses between the precisions. */
  pairFlips: number[];
  /** Cells with two or more reversed pairs ("full reversal" in App. O). */
  multiPairReversals: number;
}

/**
 * Ordering agreement across precisions (App. O): in each paired (benchmark, template, scoring)
 * cell, whether the induced model ordering (alphabetical tie-break) is the same under both
 * precisions, and how many model pairs flip strict sign.
 */
export function orderingAgreement(models: readonly string[], cells: readonly PairedCellOrdering[]): OrderingAgreement {
  if (cells.length === 0) throw new RangeError("no paired cells");
  let matching = 0;
  const pairFlips = cells.map((cell, k) => {
    if (cell.scoresA.length !== models.length || cell.scoresB.length !== models.length) {
      throw new RangeError(`cell ${k} does not have one score per model under both precisions`);
    }
    const same =
      inducedOrdering(models, cell.scoresA).join("\u0000") === inducedOrdering(models, cell.scoresB).join("\u0000");
    if (same) matching++;
    return reversedPairs(cell.scoresA, cell.scoresB);
  });
  return {
    cells: cells.length,
    matching,
    rate: matching / cells.length,
    pairFlips,
    multiPairReversals: pairFlips.filter((flips) => flips >= 2).length,
  };
}

/** Model pairs strictly ordered one way under A and strictly the other way under B. */
function reversedPairs(a: readonly number[], b: readonly number[]): number {
  let flips = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = i + 1; j < a.length; j++) if (Math.sign(a[i] - a[j]) * Math.sign(b[i] - b[j]) < 0) flips++;
  }
  return flips;
}
