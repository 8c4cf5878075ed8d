/**
 * The run's budget (spec budget.max_calls / max_cost_usd). The store is the ledger: a call is
 * charged when it is committed with its trial, and what the run has spent is read back from
 * the store, so the budget holds across resumes (and, later, across processes sharing a run).
 * Between reads, this process adds what it committed itself.
 */
import type { TrialEvent } from "./types.js";

export interface Spend {
  calls: number;
  costUsd: number;
}

export interface BudgetLimits {
  maxCostUsd?: number;
  maxCalls?: number;
}

/** Where a run's spending is recorded; the trial store implements it (its committed calls). */
export interface BudgetLedger {
  /** Every committed call of every execution of the run, and their cost. */
  spent(runId: string): Promise<Spend>;
}

export class RunBudget {
  private constructor(
    private readonly limits: BudgetLimits,
    private readonly used: Spend,
  ) {}

  /** Reads what the run has spent so far from the ledger. */
  static async open(ledger: BudgetLedger, runId: string, limits: BudgetLimits = {}): Promise<RunBudget> {
    const unlimited = limits.maxCalls === undefined && limits.maxCostUsd === undefined;
    // Without limits nothing needs the ledger: skip the aggregate query over the run's calls.
    const spent = unlimited ? { calls: 0, costUsd: 0 } : await ledger.spent(runId);
    return new RunBudget(limits, { ...spent });
  }

  /** Adds a trial this process committed (its calls are now in the ledger). */
  charge(event: Pick<TrialEvent, "calls" | "costUsd">): void {
    this.used.calls += event.calls;
    this.used.costUsd += event.costUsd;
  }

  exhausted(): boolean {
    const { maxCostUsd, maxCalls } = this.limits;
    if (maxCostUsd !== undefined && this.used.costUsd >= maxCostUsd) return true;
    return maxCalls !== undefined && this.used.calls >= maxCalls;
  }
}
