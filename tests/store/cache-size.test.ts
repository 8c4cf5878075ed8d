/**
 * `openStore(target, {cacheKiB})` sizes SQLite's page cache of the connection it creates
 * (`parallax report` asks for a small one); without it the connection keeps the driver's default.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { openStore } from "../../src/run/store/open.js";
import type { TrialStore } from "../../src/run/store/types.js";

/** The connection's `pragma cache_size` (negative: KiB). */
async function cacheSize(store: TrialStore): Promise<number> {
  const db = (store as unknown as { db: Kysely<unknown> }).db;
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
  return rows[0].cache_size;
}

describe("the SQLite page cache size", () => {
  it("is what cacheKiB asks for, and the driver's default otherwise", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parallax-cache-"));
    const plain = await openStore(dir);
    let fallback: number;
    try {
      fallback = await cacheSize(plain);
    } finally {
      await plain.close();
    }
    // The default is whatever better-sqlite3 opens a connection with.
    const raw = new Database(join(dir, "parallax.db"));
    const driverDefault = (raw.pragma("cache_size") as { cache_size: number }[])[0].cache_size;
    raw.close();
    assert.equal(fallback, driverDefault);
    for (const kib of [2_000, 512]) {
      assert.notEqual(-kib, driverDefault);
      const store = await openStore(dir, { cacheKiB: kib });
      try {
        assert.equal(await cacheSize(store), -kib, `cacheKiB ${kib}`);
      } finally {
        await store.close();
      }
    }
  });
});
