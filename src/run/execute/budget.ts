/**
 * The run's budget (spec budget.max_calls / max_cost_usd) as one shared counter in the store
 * (BudgetStore, migration 0012). Every provider call is charged BEFORE it is made: it reserves
 * one call and its estimated cost, and is refused when used + reserved + it would pass a limit;
 * after the call the reservation is settled with the real cost, or released when the call failed
 * without being paid. Any number of workers sharing a run (and every resume of it) therefore stay
 * within the limits together: calls made never exceed max_calls, and the cost exceeds
 * max_cost_usd by at most what calls in flight cost beyond their estimates (reported).
 *
 * A reservation belongs to this process (its holder id) and expires `ttlMs` after its last
 * renewal: a live process renews its own every third of that, and the reservations of one that
 * died are charged at their estimate once expired (when a reservation is refused, and when a
 * run opens its budget). A single-process run (SQLite, under the study lock) charges every
 * reservation left by a crashed earlier invocation when it opens.
 */
import { randomUUID } from "node:crypto";
import type { ChatMessage, GenerationParams } from "../../contracts/provider.js";
import { estimateTokens } from "../../core/tokens.js";
import { costUsd } from "../../models/pricing.js";
import type { BudgetLimits, BudgetReservation, BudgetState, BudgetStore, Spend } from "../store/types.js";
import { DEFAULT_LEASE_MS, newWorkerId } from "./leased-source.js";

export type { BudgetLimits, BudgetState, Spend } from "../store/types.js";
/** Where a run's spending is recorded: the store's budget counter. */
export type BudgetLedger = BudgetStore;

/** Output tokens assumed for a call whose model sets no max_tokens (as `plan` assumes). */
const DEFAULT_OUTPUT_ESTIMATE = 512;

/** A call the budget refused: nothing was sent. Its trial is left unfinished (pending). */
export class BudgetExhausted extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BudgetExhausted";
  }
}

/** What the budget looked like when this process stopped, for the run's report. */
export interface BudgetReport {
  limits: BudgetLimits;
  /** The shared counter: spent by every worker and resume, and reserved by calls still in flight. */
  state: BudgetState;
  /** Calls this process was refused (each left its trial unfinished). */
  refused: number;
  /** How far the spending is past each limit (cost: calls that cost more than their estimate). */
  over: Spend;
}

export interface BudgetOpenOptions {
  /** This process's id on its reservations (a worker's lease owner); default host:pid:random. */
  holder?: string;
  /** How long a reservation outlives its holder's last renewal; default the lease (60 s). */
  ttlMs?: number;
  /** Other processes may share the run (PostgreSQL workers): only expired reservations are theirs to charge. */
  shared?: boolean;
}

export class RunBudget {
  private last: BudgetState | undefined;
  private refused = 0;
  private outstanding = 0;
  private timer: NodeJS.Timeout | undefined;

  private readonly store: BudgetStore | undefined;
  private readonly runId: string;
  private readonly limits: BudgetLimits;
  private readonly holder: string;
  private readonly ttlMs: number;

  private constructor(counter: {
    store: BudgetStore | undefined;
    runId: string;
    limits: BudgetLimits;
    holder: string;
    ttlMs: number;
  }) {
    this.store = counter.store;
    this.runId = counter.runId;
    this.limits = counter.limits;
    this.holder = counter.holder;
    this.ttlMs = counter.ttlMs;
  }

  /** Opens the run's counter; without limits nothing is counted and the store is never touched. */
  static async open(
    store: BudgetStore,
    runId: string,
    limits: BudgetLimits = {},
    options: BudgetOpenOptions = {},
  ): Promise<RunBudget> {
    const unlimited = limits.maxCalls === undefined && limits.maxCostUsd === undefined;
    const ttlMs = options.ttlMs ?? DEFAULT_LEASE_MS;
    const budget = new RunBudget({
      store: unlimited ? undefined : store,
      runId,
      limits,
      holder: options.holder ?? newWorkerId(),
      ttlMs,
    });
    if (unlimited) return budget;
    await store.openBudget(runId);
    await store.expireBudgetReservations(runId, { all: !options.shared });
    budget.last = await store.budgetState(runId);
    budget.timer = setInterval(() => budget.renew(), Math.max(50, Math.floor(ttlMs / 3)));
    budget.timer.unref();
    return budget;
  }

  /** No room is left in the counter as last seen (or a reservation was refused): start no more trials. */
  exhausted(): boolean {
    if (!this.store) return false;
    if (this.refused > 0) return true;
    const s = this.last;
    if (!s) return false;
    const { maxCalls, maxCostUsd } = this.limits;
    if (maxCalls !== undefined && s.usedCalls + s.reservedCalls >= maxCalls) return true;
    return maxCostUsd !== undefined && s.usedCostUsd + s.reservedCostUsd >= maxCostUsd;
  }

  /**
   * Makes `call` within the budget: reserves one call at `estimateUsd`, refuses (BudgetExhausted,
   * nothing sent) when that would pass a limit, settles with `costOf(result)` after a success, and
   * after a failure charges the estimate if `paidOnFailure(error)`, else releases the reservation.
   */
  async charged<T>(
    estimateUsd: number,
    call: () => Promise<T>,
    costOf: (result: T) => number,
    paidOnFailure: (error: unknown) => boolean,
  ): Promise<T> {
    if (!this.store) return call();
    const reservation = await this.reserve(estimateUsd);
    let result: T;
    try {
      result = await call();
    } catch (error) {
      await this.settle(
        reservation,
        paidOnFailure(error) ? { calls: 1, costUsd: estimateUsd } : { calls: 0, costUsd: 0 },
      );
      throw error;
    }
    await this.settle(reservation, { calls: 1, costUsd: costOf(result) });
    return result;
  }

  /** The counter now, and how far past the limits it is; undefined without limits. */
  async report(): Promise<BudgetReport | undefined> {
    if (!this.store) return undefined;
    const state = (await this.store.budgetState(this.runId)) ?? this.last!;
    return budgetReport(this.limits, state, this.refused);
  }

  /** Stops renewing this process's reservations (call once its calls have settled). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async reserve(estimateUsd: number): Promise<BudgetReservation> {
    const store = this.store!;
    const reservation = { id: randomUUID(), holder: this.holder, calls: 1, costUsd: estimateUsd };
    let state = await store.reserveBudget(this.runId, reservation, this.limits, this.ttlMs);
    if (!state) {
      // Refused: reservations of a dead worker may be holding the room; charge the expired ones and try once more.
      const expired = await store.expireBudgetReservations(this.runId);
      if (expired.calls > 0) state = await store.reserveBudget(this.runId, reservation, this.limits, this.ttlMs);
    }
    if (!state) {
      this.refused++;
      this.last = await store.budgetState(this.runId);
      throw new BudgetExhausted(`the run's budget (${describeLimits(this.limits)}) has no room for another call`);
    }
    this.last = state;
    this.outstanding++;
    return reservation;
  }

  private async settle(reservation: BudgetReservation, spent: Spend): Promise<void> {
    this.outstanding--;
    this.last = await this.store!.settleBudget(this.runId, reservation, spent);
  }

  private renew(): void {
    if (this.outstanding === 0 || !this.store) return;
    // A failed renewal only risks the reservation expiring, which charges it at its estimate.
    this.store.renewBudgetReservations(this.holder, this.ttlMs).catch(() => undefined);
  }
}

/** The counter against the limits: how far past each one it is. */
export function budgetReport(limits: BudgetLimits, state: BudgetState, refused: number): BudgetReport {
  const { maxCalls, maxCostUsd } = limits;
  return {
    limits,
    state,
    refused,
    over: {
      calls: maxCalls === undefined ? 0 : Math.max(0, state.usedCalls - maxCalls),
      costUsd: maxCostUsd === undefined ? 0 : Math.max(0, state.usedCostUsd - maxCostUsd),
    },
  };
}

export function describeLimits(limits: BudgetLimits): string {
  const parts = [];
  if (limits.maxCalls !== undefined) parts.push(`max_calls ${limits.maxCalls}`);
  if (limits.maxCostUsd !== undefined) parts.push(`max_cost_usd ${limits.maxCostUsd}`);
  return parts.join(", ");
}

/**
 * A generation call's worst-case cost before it is made: its prompt (~4 characters a token) and
 * the most output it can return (its max_tokens, which every built-in scaffold sends, else the
 * model's maximum `maxOutput`), so the reservation covers what the call can cost. A typical
 * length only when neither is known.
 */
export function estimatedCallCost(
  messages: readonly ChatMessage[],
  params: GenerationParams,
  price: Parameters<typeof costUsd>[1],
  maxOutput?: number,
): number {
  const inputTokens = messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
  return costUsd({ inputTokens, outputTokens: params.maxTokens ?? maxOutput ?? DEFAULT_OUTPUT_ESTIMATE }, price).usd;
}

/**
 * Whether a failed call may have been paid: a timeout or an abort may have left a request the
 * provider answered (and billed) after we stopped waiting. Other failures returned no answer.
 */
export function mayHaveBeenPaid(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted) return true;
  return (error as { bucket?: string } | undefined)?.bucket === "timeout";
}

/** One line for the run's summary: the shared counter, the reservations still in flight, and any overrun. */
export function describeBudget(report: BudgetReport): string {
  const { state, limits, over } = report;
  const used = [
    `${state.usedCalls} call(s)${limits.maxCalls === undefined ? "" : ` of max_calls ${limits.maxCalls}`}`,
    `$${state.usedCostUsd.toFixed(4)}${limits.maxCostUsd === undefined ? "" : ` of max_cost_usd ${limits.maxCostUsd}`}`,
  ];
  return (
    `budget (shared by every worker): used ${used.join(", ")}; ` +
    `reserved in flight ${state.reservedCalls} call(s) ($${state.reservedCostUsd.toFixed(4)}); ` +
    `over the limit ${over.calls} call(s), $${over.costUsd.toFixed(4)}; refused here ${report.refused}`
  );
}
