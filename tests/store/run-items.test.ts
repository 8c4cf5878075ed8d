/**
 * A run's items and exemplar pools in deflated batches (migration 0024): saved in order across
 * several batches and saves (an item already stored keeps its place), read back exactly, and
 * moved to and from the older one-row-per-item table by the migration in the same order; on
 * SQLite and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { type Kysely, sql } from "kysely";
import type { Item } from "../../src/contracts/item.js";
import type { KyselyTrialStore } from "../../src/run/store/kysely-store.js";
import { openStore } from "../../src/run/store/open.js";
import { encodeItemBatch, type ItemBatch, RUN_ITEM_BATCH } from "../../src/run/store/run-items.js";
import { dropTestSchemas, testStoreUrl } from "../helpers/postgres-run.js";
import { after, describeNeeding, it, needsPostgres } from "../helpers/prerequisites.js";
import { makeRun } from "./store-suite.js";

/** Items whose text is awkward for JSON lines: newlines, quotes, separators, non-ASCII. */
function items(count: number, from = 0): Item[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      id: `q-${(i * 7919) % 10007}`,
      benchmark: i % 3 === 0 ? "exemplars:bench" : "bench",
      stem: `Question ${i}\nline two "quoted" \u2028 sep, caf\u00e9 \u{1F642}`,
      options: [`yes ${i}`, `no ${i}`],
      gold_index: i % 2,
    } as unknown as Item;
  });
}

/** Items as stored batches of RUN_ITEM_BATCH (a set-aside pool's form). */
function batchesOf(list: readonly Item[]): ItemBatch[] {
  const batches: ItemBatch[] = [];
  for (let start = 0; start < list.length; start += RUN_ITEM_BATCH)
    batches.push(encodeItemBatch(list.slice(start, start + RUN_ITEM_BATCH)));
  return batches;
}

async function batchRows(store: KyselyTrialStore, runId: string) {
  const db = (store as unknown as { db: Kysely<unknown> }).db;
  const { rows } = await sql<{ batch: number; keys: string; items: Uint8Array }>`select batch, keys, items
    from run_item_batches where run_id = ${runId} order by batch`.execute(db);
  return rows.map((r) => ({ batch: Number(r.batch), keys: r.keys, items: Buffer.from(r.items).toString("base64") }));
}

async function oldRows(store: KyselyTrialStore, runId: string) {
  const db = (store as unknown as { db: Kysely<unknown> }).db;
  const { rows } = await sql<{ item: string; position: number }>`select item, position from run_items
    where run_id = ${runId} order by position`.execute(db);
  return rows;
}

function runItemBehaviours(make: () => string) {
  it("come back in the order saved, across batches and saves; the migration moves them both ways", async () => {
    const target = make();
    const store = (await openStore(target)) as KyselyTrialStore;
    try {
      await store.saveRun(makeRun("r1"));
      await store.saveRun(makeRun("r2"));
      const first = items(RUN_ITEM_BATCH * 2 + 17);
      const second = items(40, RUN_ITEM_BATCH * 2);
      await store.saveRunItems("r1", first);
      // Overlaps the first save by 17 items (kept in their first place) and adds 23.
      await store.saveRunItems("r1", second);
      await store.saveRunItems("r1", [...first].reverse());
      await store.saveRunItems("r2", items(3, 5));
      const expected = [...first, ...second.slice(17)];
      assert.deepEqual(await store.listRunItems("r1"), expected, "r1: first save's order, then the new items");
      assert.deepEqual(await store.listRunItems("r2"), items(3, 5), "r2: its own items");
      assert.deepEqual(await store.listRunItems("none"), [], "a run without items");

      await store.migrate("0023_search_queue");
      const rows = await oldRows(store, "r1");
      assert.deepEqual(
        rows.map((r) => JSON.parse(r.item)),
        expected,
        "one row per item, in order",
      );
      assert.deepEqual(
        rows.map((r) => Number(r.position)),
        expected.map((_, i) => i),
        "positions follow the saved order",
      );
      await store.migrate();
      assert.deepEqual(await store.listRunItems("r1"), expected, "r1 after the round trip");
      assert.deepEqual(await store.listRunItems("r2"), items(3, 5), "r2 after the round trip");
    } finally {
      await store.close();
    }
  });
}

function itemBatchBehaviours(make: () => string) {
  it("saved as encoded batches, store the same rows as saveRunItems and skip what is stored", async () => {
    const store = (await openStore(make())) as KyselyTrialStore;
    try {
      for (const run of ["plain", "batched", "partial"]) await store.saveRun(makeRun(run));
      const head = items(30, 50_000);
      const pool = items(RUN_ITEM_BATCH * 2 + 61);
      await store.saveRunItems("plain", head);
      await store.saveRunItems("plain", pool);
      await store.saveRunItems("batched", head);
      await store.saveRunItemBatches("batched", batchesOf(pool));
      await store.saveRunItemBatches("batched", batchesOf(pool));
      assert.deepEqual(
        (await batchRows(store, "batched")).map(({ batch, keys, items }) => ({ batch, keys, items })),
        await batchRows(store, "plain"),
        "the same batch rows, byte for byte; a second save adds nothing",
      );
      assert.deepEqual(await store.listRunItems("batched"), [...head, ...pool], "read back in order");

      // A save interrupted after some of the pool, then the pool's batches (one repeats a key).
      const stored = pool.slice(0, RUN_ITEM_BATCH + 10);
      await store.saveRunItems("partial", stored);
      const repeated = [...pool.slice(RUN_ITEM_BATCH), pool[RUN_ITEM_BATCH * 2 + 3]];
      await store.saveRunItemBatches("partial", [...batchesOf(pool.slice(0, RUN_ITEM_BATCH)), ...batchesOf(repeated)]);
      assert.deepEqual(await store.listRunItems("partial"), pool, "each item once, in the pool's order");
    } finally {
      await store.close();
    }
  });
}

describe("run items (SQLite)", () => {
  runItemBehaviours(() => mkdtempSync(join(tmpdir(), "parallax-run-items-")));
  itemBatchBehaviours(() => mkdtempSync(join(tmpdir(), "parallax-run-items-")));
});

describeNeeding(needsPostgres(), "run items (PostgreSQL)", () => {
  after(() => dropTestSchemas());
  runItemBehaviours(() => testStoreUrl("parallax_run_items"));
  itemBatchBehaviours(() => testStoreUrl("parallax_run_item_batches"));
});
