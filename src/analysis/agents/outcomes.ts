/**
 * The per-cell outcome table (GAIA comparison Table 2): attempts, completed and errored units,
 * the bucket counts (summing to the attempts), the completion rate and both accuracies.
 */
import { type AgentUnit, OUTCOME_BUCKETS, type OutcomeBucket } from "./units.js";

export interface CellOutcomes {
  attempts: number;
  completed: number;
  errored: number;
  /** Zero-token rejections left out of the attempts (not scored). */
  quarantined: number;
  completionRate: number | null;
  buckets: Record<OutcomeBucket, number>;
  /** correct / attempts (errored units count as incorrect). */
  accuracyOverall: number | null;
  /** correct / completed. */
  accuracyCompleted: number | null;
}

const share = (n: number, d: number) => (d > 0 ? n / d : null);

export function cellOutcomes(units: readonly AgentUnit[], quarantined: number): CellOutcomes {
  const buckets = Object.fromEntries(OUTCOME_BUCKETS.map((b) => [b, 0])) as Record<OutcomeBucket, number>;
  for (const u of units) buckets[u.bucket]++;
  const attempts = units.length;
  const completed = buckets.correct + buckets.wrong;
  return {
    attempts,
    completed,
    errored: attempts - completed,
    quarantined,
    completionRate: share(completed, attempts),
    buckets,
    accuracyOverall: share(buckets.correct, attempts),
    accuracyCompleted: share(buckets.correct, completed),
  };
}
