/**
 * Migration 0024: a run's items and exemplar pools are stored in deflated batches (run-items.ts),
 * one row per RUN_ITEM_BATCH items, instead of one JSON row per item. The rows of run_items are
 * moved over in their listed order (0018's position, then benchmark and id), a batch at a time.
 */
import { type Kysely, type Migration, sql } from "kysely";
import type { Item } from "../../../contracts/item.js";
import { decodeItemLines, encodeItemBatch, RUN_ITEM_BATCH } from "../run-items.js";
import { isPostgres } from "./0022-trial-search.js";

// biome-ignore lint/suspicious/noExplicitAny: kysely's Migration signature takes Kysely<any>
type AnyDb = Kysely<any>;

interface ItemRow {
  benchmark: string;
  item_id: string;
  item: string;
  place: number;
}

export const runItemBatches: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable("run_item_batches")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("batch", "integer", (c) => c.notNull())
      .addColumn("keys", "text", (c) => c.notNull())
      .addColumn("items", isPostgres(db) ? "bytea" : "blob", (c) => c.notNull())
      .addPrimaryKeyConstraint("run_item_batches_pk", ["run_id", "batch"])
      .execute();
    const runs = await db.selectFrom("run_items").select("run_id").distinct().execute();
    for (const { run_id: runId } of runs) {
      let batch = 0;
      for (let after: ItemRow | undefined; ; ) {
        const rows = await nextRows(db, runId, after);
        if (rows.length === 0) break;
        const items = rows.map((r) => JSON.parse(r.item) as Item);
        await db
          .insertInto("run_item_batches")
          .values({ run_id: runId, batch: batch++, ...encodeItemBatch(items) })
          .execute();
        after = rows[rows.length - 1];
      }
    }
    await db.schema.dropTable("run_items").execute();
  },
  async down(db: AnyDb) {
    await db.schema
      .createTable("run_items")
      .addColumn("run_id", "text", (c) => c.notNull().references("runs.id"))
      .addColumn("benchmark", "text", (c) => c.notNull())
      .addColumn("item_id", "text", (c) => c.notNull())
      .addColumn("item", "text", (c) => c.notNull())
      .addColumn("position", "integer")
      .addPrimaryKeyConstraint("run_items_pk", ["run_id", "benchmark", "item_id"])
      .execute();
    const batches = await db
      .selectFrom("run_item_batches")
      .select(["run_id", "batch"])
      .orderBy("run_id")
      .orderBy("batch")
      .execute();
    const positions = new Map<string, number>();
    for (const { run_id: runId, batch } of batches) {
      const row = await db
        .selectFrom("run_item_batches")
        .select("items")
        .where("run_id", "=", runId)
        .where("batch", "=", batch)
        .executeTakeFirstOrThrow();
      const start = positions.get(runId) ?? 0;
      const lines = decodeItemLines(row.items);
      positions.set(runId, start + lines.length);
      const rows = lines.map((line, i) => {
        const item = JSON.parse(line) as Item;
        return { run_id: runId, benchmark: item.benchmark, item_id: item.id, item: line, position: start + i };
      });
      for (let i = 0; i < rows.length; i += 100)
        await db
          .insertInto("run_items")
          .values(rows.slice(i, i + 100))
          .execute();
    }
    await db.schema.dropTable("run_item_batches").execute();
  },
};

/** The run's next rows of run_items in their listed order (rows from before 0018 have no position). */
function nextRows(db: AnyDb, runId: string, after: ItemRow | undefined): Promise<ItemRow[]> {
  const place = sql<number>`coalesce(position, -1)`;
  let query = db
    .selectFrom("run_items")
    .select(["benchmark", "item_id", "item", place.as("place")])
    .where("run_id", "=", runId);
  if (after)
    query = query.where(
      sql<boolean>`(${place}, benchmark, item_id) > (${after.place}, ${after.benchmark}, ${after.item_id})`,
    );
  return query.orderBy(place).orderBy("benchmark").orderBy("item_id").limit(RUN_ITEM_BATCH).execute();
}
