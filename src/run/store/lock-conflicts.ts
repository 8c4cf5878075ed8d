/**
 * Transactions PostgreSQL aborted to break a lock conflict. Every multi-row write in the store
 * takes its row locks in key order, so workers should never deadlock; but the server may still
 * pick a victim (a lock taken by a foreign-key check, a plan that scans in another order), and
 * such an abort changed nothing: the whole transaction rolled back and can simply run again.
 */

/**
 * The one order in which the store takes row locks: by key, compared as code units (the same
 * order as PostgreSQL's "C" collation for the ASCII keys the store uses).
 */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** SQLSTATE 40P01 deadlock_detected and 40001 serialization_failure. */
const RETRYABLE_CODES = new Set(["40P01", "40001"]);

const ATTEMPTS = 5;

export function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && RETRYABLE_CODES.has(code);
}

/** Runs `transaction` again (after a short random pause) when the server aborted it as a lock-conflict victim. */
export async function retryLockConflicts<T>(transaction: () => Promise<T>, attempts = ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || !isLockConflict(error)) throw error;
      // Random, so the two victims of one conflict do not collide again in step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
