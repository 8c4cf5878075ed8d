/**
 * The paper-scale bootstrap input (2,617 case clusters x 24 cells of Bernoulli(0.6) outcomes),
 * shared by the bootstrap test (correctness) and `npm run bench:bootstrap` (its speed).
 */
import { type ClusteredCellCounts, RandomStream } from "../../src/stats/index.js";

export const WIDE_CLUSTERS = 2617;
export const WIDE_CELLS = 24;

export function wideClusterTable(): ClusteredCellCounts {
  const stream = RandomStream.fromSeed(4);
  return {
    clusters: Array.from({ length: WIDE_CLUSTERS }, (_, g) => `case-${String(g).padStart(5, "0")}`),
    cells: Array.from({ length: WIDE_CELLS }, (_, c) => `cond-${c}`),
    successes: Float64Array.from({ length: WIDE_CLUSTERS * WIDE_CELLS }, () => stream.bernoulli(0.6)),
    trials: new Float64Array(WIDE_CLUSTERS * WIDE_CELLS).fill(1),
  };
}
