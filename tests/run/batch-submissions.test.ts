/**
 * The store's batch submissions (migration 0013) on SQLite; tests/run/batch-postgres.test.ts runs
 * the same checks on PostgreSQL.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openStore } from "../../src/run/store/open.js";
import { checkSubmissions } from "../helpers/batch-submissions.js";

test("batch submissions on SQLite: recorded before the create, then the batch id; absent ones uncounted", async () => {
  const store = await openStore(mkdtempSync(join(tmpdir(), "parallax-submissions-")));
  try {
    await checkSubmissions(store);
  } finally {
    await store.close();
  }
});
