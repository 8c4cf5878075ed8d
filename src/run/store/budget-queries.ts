/**
 * The BudgetStore half of the kysely store (migration 0012): the run's shared budget counter.
 * A call is charged BEFORE it is made: `reserveBudget` is one conditional UPDATE of the run's
 * counter row (reserve only if used + reserved + request stays within every limit) plus the
 * reservation's own row, in one transaction; `settleBudget` replaces the reservation with what
 * the call really cost. Every transaction here starts on the run's counter row, so the budget
 * transactions of all workers are serialised on it (PostgreSQL row lock; SQLite's one writer)
 * and cannot deadlock on the reservation rows.
 *
 * A reservation whose holder died is not leaked: it expires (`ttlMs` on the database clock,
 * renewed by its living holder) and `expireBudgetReservations` then charges it at its estimate,
 * since a call in flight at a crash was most likely sent and paid.
 */
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import { databaseNowMs } from "./lease-queries.js";
import type { RunBudgetTable, StoreDatabase } from "./schema.js";
import type { BudgetLimits, BudgetReservation, BudgetState, BudgetStore, Spend } from "./types.js";

type Dialect = "sqlite" | "postgres";
type Trx = Transaction<StoreDatabase>;

export class KyselyBudgetStore implements BudgetStore {
  constructor(
    private readonly db: Kysely<StoreDatabase>,
    private readonly dialect: Dialect,
    private readonly committedSpend: (runId: string) => Promise<Spend>,
  ) {}

  async openBudget(runId: string): Promise<BudgetState> {
    const existing = await this.budgetState(runId);
    if (existing) return existing;
    // A run stored before the counter existed starts from what its committed calls spent.
    const spent = await this.committedSpend(runId);
    await this.db
      .insertInto("run_budget")
      .values({
        run_id: runId,
        used_calls: spent.calls,
        used_cost_usd: spent.costUsd,
        reserved_calls: 0,
        reserved_cost_usd: 0,
      })
      .onConflict((oc) => oc.column("run_id").doNothing())
      .execute();
    return (await this.budgetState(runId))!;
  }

  async reserveBudget(
    runId: string,
    reservation: BudgetReservation,
    limits: BudgetLimits,
    ttlMs: number,
  ): Promise<BudgetState | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let update = trx
        .updateTable("run_budget")
        .set((eb) => ({
          reserved_calls: eb("reserved_calls", "+", reservation.calls),
          reserved_cost_usd: eb("reserved_cost_usd", "+", reservation.costUsd),
        }))
        .where("run_id", "=", runId);
      if (limits.maxCalls !== undefined) {
        update = update.where(
          (eb) => eb(eb(eb.ref("used_calls"), "+", eb.ref("reserved_calls")), "+", reservation.calls),
          "<=",
          limits.maxCalls,
        );
      }
      if (limits.maxCostUsd !== undefined) {
        update = update.where(
          (eb) => eb(eb(eb.ref("used_cost_usd"), "+", eb.ref("reserved_cost_usd")), "+", reservation.costUsd),
          "<=",
          limits.maxCostUsd,
        );
      }
      const row = await update.returningAll().executeTakeFirst();
      if (!row) return undefined;
      await trx
        .insertInto("budget_reservations")
        .values({
          id: reservation.id,
          run_id: runId,
          holder: reservation.holder,
          calls: reservation.calls,
          cost_usd: reservation.costUsd,
          expires_at: this.expiry(ttlMs),
        })
        .execute();
      return toState(row);
    });
  }

  async settleBudget(runId: string, reservation: BudgetReservation, spent: Spend): Promise<BudgetState> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockCounter(trx, runId);
      const held = await trx
        .deleteFrom("budget_reservations")
        .where("id", "=", reservation.id)
        .returning(["calls", "cost_usd"])
        .executeTakeFirst();
      // Expired meanwhile (its holder looked dead): it was charged at its estimate; correct that.
      const charge = held
        ? { used: spent, released: { calls: held.calls, costUsd: held.cost_usd } }
        : {
            used: { calls: spent.calls - reservation.calls, costUsd: spent.costUsd - reservation.costUsd },
            released: { calls: 0, costUsd: 0 },
          };
      return toState(await this.move(trx, runId, charge.used, charge.released));
    });
  }

  async renewBudgetReservations(holder: string, ttlMs: number): Promise<void> {
    await this.db
      .updateTable("budget_reservations")
      .set({ expires_at: this.expiry(ttlMs) })
      .where("holder", "=", holder)
      .execute();
  }

  async expireBudgetReservations(runId: string, options: { all?: boolean } = {}): Promise<Spend> {
    return this.db.transaction().execute(async (trx) => {
      await this.lockCounter(trx, runId);
      let expired = trx.deleteFrom("budget_reservations").where("run_id", "=", runId);
      if (!options.all) expired = expired.where("expires_at", "<", databaseNowMs(this.dialect));
      const rows = await expired.returning(["calls", "cost_usd"]).execute();
      const charged = {
        calls: rows.reduce((sum, r) => sum + r.calls, 0),
        costUsd: rows.reduce((sum, r) => sum + r.cost_usd, 0),
      };
      if (rows.length > 0) await this.move(trx, runId, charged, charged);
      return charged;
    });
  }

  async budgetState(runId: string): Promise<BudgetState | undefined> {
    const row = await this.db.selectFrom("run_budget").selectAll().where("run_id", "=", runId).executeTakeFirst();
    return row ? toState(row) : undefined;
  }

  private expiry(ttlMs: number) {
    return sql<number>`${databaseNowMs(this.dialect)} + ${ttlMs}`;
  }

  /** Takes the run's counter row first (PostgreSQL: FOR UPDATE), as every budget transaction does. */
  private async lockCounter(trx: Trx, runId: string): Promise<void> {
    let query = trx.selectFrom("run_budget").select("run_id").where("run_id", "=", runId);
    if (this.dialect === "postgres") query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw new Error(`budget: run ${JSON.stringify(runId)} has no budget counter; openBudget first`);
  }

  /** Adds `used` to what was spent and takes `released` off what is reserved. */
  private async move(trx: Trx, runId: string, used: Spend, released: Spend) {
    return trx
      .updateTable("run_budget")
      .set((eb) => ({
        used_calls: eb("used_calls", "+", used.calls),
        used_cost_usd: eb("used_cost_usd", "+", used.costUsd),
        reserved_calls: eb("reserved_calls", "-", released.calls),
        // No reservation left: exactly zero, not the rounding residue of adding and taking off.
        reserved_cost_usd: eb
          .case()
          .when(eb("reserved_calls", "-", released.calls), "=", 0)
          .then(0)
          .else(eb("reserved_cost_usd", "-", released.costUsd))
          .end(),
      }))
      .where("run_id", "=", runId)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}

function toState(row: Selectable<RunBudgetTable>): BudgetState {
  return {
    usedCalls: Number(row.used_calls),
    usedCostUsd: Number(row.used_cost_usd),
    reservedCalls: Number(row.reserved_calls),
    reservedCostUsd: Number(row.reserved_cost_usd),
  };
}
