/**
 * The LeaseStore half of the kysely store (migration 0008): trials claimed under leases, the
 * workers' heartbeats, the run's items. Lease times are read from the DATABASE clock, so
 * workers on machines whose clocks disagree still agree on when a lease ran out.
 *
 * The claim is one UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED) on PostgreSQL:
 * concurrent claims skip each other's rows instead of waiting or taking the same trial. On
 * SQLite (one file, writers serialised) the same statement without the lock clause is atomic.
 */
import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import type { Item } from "../../contracts/item.js";
import { compareKeys } from "./lock-conflicts.js";
import {
  decodeItemKeys,
  decodeItemLines,
  encodeItemBatch,
  type ItemBatch,
  itemKey,
  RUN_ITEM_BATCH,
} from "./run-items.js";
import type { StoreDatabase, TrialsTable } from "./schema.js";
import type { LeaseStore, LeaseSummary, StoredPlugin, TrialRow, WorkerRecord } from "./types.js";

type Dialect = "sqlite" | "postgres";

/** Now on the database clock, in ms since the epoch. */
export function databaseNowMs(dialect: Dialect): RawBuilder<number> {
  return dialect === "postgres"
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
}

export class KyselyLeaseStore implements LeaseStore {
  constructor(
    private readonly db: Kysely<StoreDatabase>,
    private readonly dialect: Dialect,
    private readonly toTrialRows: (rows: readonly Selectable<TrialsTable>[]) => Promise<TrialRow[]>,
  ) {}

  private nowMs(): RawBuilder<number> {
    return databaseNowMs(this.dialect);
  }

  async claimTrials(
    runId: string,
    worker: string,
    max: number,
    options: { leaseMs: number; erroredBefore: string },
  ): Promise<TrialRow[]> {
    if (max <= 0) return [];
    const now = this.nowMs();
    let claimable = this.db
      .selectFrom("trials")
      .select("id")
      .where("run_id", "=", runId)
      .where((eb) =>
        eb.or([
          eb("status", "=", "pending"),
          eb.and([eb("status", "=", "errored"), eb("updated_at", "<", options.erroredBefore)]),
        ]),
      )
      .where((eb) => eb.or([eb("lease_owner", "is", null), eb("lease_expires_at", "<", now)]))
      .orderBy("id")
      .limit(max);
    if (this.dialect === "postgres") claimable = claimable.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable("trials")
      .set({ lease_owner: worker, lease_expires_at: sql<number>`${now} + ${options.leaseMs}` })
      .where("id", "in", claimable)
      .returningAll()
      .execute();
    return (await this.toTrialRows(rows)).sort((a, b) => compareKeys(a.id, b.id));
  }

  async renewLeases(worker: string, trialIds: readonly string[], leaseMs: number): Promise<string[]> {
    if (trialIds.length === 0) return [];
    const rows = await this.db
      .updateTable("trials")
      .set({ lease_expires_at: sql<number>`${this.nowMs()} + ${leaseMs}` })
      .where("id", "in", this.heldInKeyOrder(worker, trialIds))
      .where("status", "<>", "finished")
      .returning("id")
      .execute();
    return rows.map((r) => r.id);
  }

  async releaseLeases(worker: string, trialIds: readonly string[]): Promise<void> {
    if (trialIds.length === 0) return;
    await this.db
      .updateTable("trials")
      .set({ lease_owner: null, lease_expires_at: null })
      .where("id", "in", this.heldInKeyOrder(worker, trialIds))
      .execute();
  }

  /**
   * The worker's leased trials among `trialIds`. On PostgreSQL they are row-locked in key order,
   * the order a completion transaction takes them in, so a lease renewal running beside the
   * same worker's commit waits for it instead of deadlocking with it.
   */
  private heldInKeyOrder(worker: string, trialIds: readonly string[]) {
    let held = this.db
      .selectFrom("trials")
      .select("id")
      .where("lease_owner", "=", worker)
      .where("id", "in", [...trialIds]);
    if (this.dialect === "postgres") held = held.orderBy(sql`id collate "C"`).forUpdate();
    return held;
  }

  async registerWorker(worker: Omit<WorkerRecord, "heartbeatAt" | "state" | "inFlight">): Promise<void> {
    await this.db
      .insertInto("workers")
      .values({
        id: worker.id,
        run_id: worker.runId,
        host: worker.host,
        pid: worker.pid,
        parallax_version: worker.parallaxVersion,
        started_at: worker.startedAt,
        heartbeat_at: this.nowMs(),
        in_flight: 0,
        state: "running",
        lease_ms: worker.leaseMs,
      })
      .execute();
  }

  async heartbeatWorker(workerId: string, inFlight: number): Promise<void> {
    await this.db
      .updateTable("workers")
      .set({ heartbeat_at: this.nowMs(), in_flight: inFlight })
      .where("id", "=", workerId)
      .execute();
  }

  async stopWorker(workerId: string): Promise<void> {
    await this.db
      .updateTable("workers")
      .set({ heartbeat_at: this.nowMs(), in_flight: 0, state: "stopped" })
      .where("id", "=", workerId)
      .execute();
  }

  async listWorkers(runId: string): Promise<WorkerRecord[]> {
    const rows = await this.db
      .selectFrom("workers")
      .selectAll()
      .where("run_id", "=", runId)
      .orderBy("started_at")
      .orderBy("id")
      .execute();
    return rows.map((r) => ({
      id: r.id,
      runId: r.run_id,
      host: r.host,
      pid: r.pid,
      parallaxVersion: r.parallax_version,
      startedAt: r.started_at,
      heartbeatAt: Number(r.heartbeat_at),
      inFlight: r.in_flight,
      state: r.state === "stopped" ? "stopped" : "running",
      leaseMs: r.lease_ms === null || r.lease_ms === undefined ? null : Number(r.lease_ms),
    }));
  }

  async othersLeases(runId: string, worker: string): Promise<{ held: number; nextExpiry: number | null; now: number }> {
    const now = this.nowMs();
    const row = await this.db
      .selectFrom("trials")
      .select((eb) => [
        eb.fn.countAll<number | string>().as("held"),
        eb.fn.min<number | string | null>("lease_expires_at").as("next"),
        sql<number | string>`${now}`.as("now"),
      ])
      .where("run_id", "=", runId)
      .where("status", "=", "pending")
      .where("lease_owner", "is not", null)
      .where("lease_owner", "<>", worker)
      .where("lease_expires_at", ">=", now)
      .executeTakeFirst();
    return {
      held: Number(row?.held ?? 0),
      nextExpiry: row?.next === null || row?.next === undefined ? null : Number(row.next),
      now: Number(row?.now ?? Date.now()),
    };
  }

  async leaseSummary(runId: string): Promise<LeaseSummary> {
    const now = this.nowMs();
    const row = await this.db
      .selectFrom("trials")
      .select((eb) => [
        eb.fn.sum<number | string | null>(sql`case when lease_expires_at >= ${now} then 1 else 0 end`).as("held"),
        eb.fn.sum<number | string | null>(sql`case when lease_expires_at < ${now} then 1 else 0 end`).as("expired"),
        eb.fn
          .min<number | string | null>(sql`case when lease_expires_at >= ${now} then lease_expires_at end`)
          .as("next"),
        eb.fn.max<number | string | null>("lease_expires_at").as("last"),
        sql<number | string>`${now}`.as("now"),
      ])
      .where("run_id", "=", runId)
      .where("status", "<>", "finished")
      .where("lease_owner", "is not", null)
      .executeTakeFirst();
    const num = (v: number | string | null | undefined) => (v === null || v === undefined ? null : Number(v));
    const held = num(row?.held) ?? 0;
    return {
      held,
      expired: num(row?.expired) ?? 0,
      nextExpiry: num(row?.next),
      lastExpiry: held > 0 ? num(row?.last) : null,
      now: num(row?.now) ?? Date.now(),
    };
  }

  async saveRunItems(runId: string, items: readonly Item[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Items already stored (by benchmark and id) keep their place; the rest follow in order.
      const stored = await storedItemKeys(trx, runId);
      const { seen } = stored;
      const fresh = items.filter((item) => {
        const key = itemKey(item.benchmark, item.id);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      let batch = stored.next;
      // Encoded a batch at a time: a run's exemplar pools can hold ~100 MB of item JSON.
      for (let start = 0; start < fresh.length; start += RUN_ITEM_BATCH) {
        const encoded = encodeItemBatch(fresh.slice(start, start + RUN_ITEM_BATCH));
        await trx
          .insertInto("run_item_batches")
          .values({ run_id: runId, batch: batch++, ...encoded })
          .execute();
      }
    });
  }

  async saveRunItemBatches(runId: string, batches: readonly ItemBatch[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const stored = await storedItemKeys(trx, runId);
      const { seen } = stored;
      let batch = stored.next;
      for (const encoded of batches) {
        const keys = decodeItemKeys(encoded.keys);
        const fresh = keys.filter((key) => !seen.has(key) && seen.add(key));
        if (fresh.length === 0) continue;
        // A batch partly stored (or repeating a key) is stored as saveRunItems would: only its new items.
        const row = fresh.length === keys.length ? encoded : encodeItemBatch(freshItems(encoded, new Set(fresh)));
        await trx
          .insertInto("run_item_batches")
          .values({ run_id: runId, batch: batch++, keys: row.keys, items: row.items })
          .execute();
      }
    });
  }

  async listRunItems(runId: string): Promise<Item[]> {
    const items: Item[] = [];
    // One batch at a time, so the run's deflated rows are never all in memory at once.
    for (let batch = -1; ; ) {
      const row = await this.db
        .selectFrom("run_item_batches")
        .select(["batch", "items"])
        .where("run_id", "=", runId)
        .where("batch", ">", batch)
        .orderBy("batch")
        .limit(1)
        .executeTakeFirst();
      if (!row) return items;
      for (const line of decodeItemLines(row.items)) items.push(JSON.parse(line) as Item);
      batch = row.batch;
    }
  }

  async saveRunPlugins(runId: string, plugins: readonly StoredPlugin[]): Promise<void> {
    if (plugins.length === 0) return;
    await this.db
      .insertInto("run_plugins")
      .values(plugins.map((plugin, position) => ({ run_id: runId, position, ...plugin })))
      .onConflict((oc) => oc.columns(["run_id", "position"]).doNothing())
      .execute();
  }

  async listRunPlugins(runId: string): Promise<StoredPlugin[]> {
    const rows = await this.db
      .selectFrom("run_plugins")
      .select(["specifier", "file", "sha256", "content"])
      .where("run_id", "=", runId)
      .orderBy("position")
      .execute();
    return rows;
  }
}

/** The keys of the run's stored items, and the number its next stored batch takes. */
async function storedItemKeys(trx: Kysely<StoreDatabase>, runId: string): Promise<{ seen: Set<string>; next: number }> {
  const stored = await trx
    .selectFrom("run_item_batches")
    .select(["batch", "keys"])
    .where("run_id", "=", runId)
    .orderBy("batch")
    .execute();
  return {
    seen: new Set(stored.flatMap((row) => decodeItemKeys(row.keys))),
    next: stored.length === 0 ? 0 : stored[stored.length - 1].batch + 1,
  };
}

/** A stored batch's items whose keys are in `keep`, each once, in order. */
function freshItems(batch: ItemBatch, keep: Set<string>): Item[] {
  const items: Item[] = [];
  for (const line of decodeItemLines(batch.items)) {
    const item = JSON.parse(line) as Item;
    if (keep.delete(itemKey(item.benchmark, item.id))) items.push(item);
  }
  return items;
}
