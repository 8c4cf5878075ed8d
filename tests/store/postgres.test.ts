/**
 * The store suite on PostgreSQL, when PARALLAX_TEST_PG_URL names a database (start one with
 * scripts/start-test-postgres.sh). Every test gets its own schema, dropped afterwards.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import pg from "pg";
import { openStore, parsePostgresUrl } from "../../src/run/store/index.js";
import { retryLockConflicts } from "../../src/run/store/lock-conflicts.js";
import { type StoreTarget, storeBehaviours } from "./store-suite.js";

const PG_URL = process.env.PARALLAX_TEST_PG_URL;

function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return u.toString();
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

function pgTarget(url: string): Promise<StoreTarget> {
  const schema = `parallax_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  return Promise.resolve({
    open: () => openStore(withSchema(url, schema)),
    cleanup: () => dropSchema(url, schema),
  });
}

const skip = PG_URL
  ? undefined
  : "PARALLAX_TEST_PG_URL is not set: PostgreSQL store tests skipped (scripts/start-test-postgres.sh prints one)";

storeBehaviours("trial store on PostgreSQL", () => pgTarget(PG_URL!), skip);

test("PostgreSQL: ?schema= creates the schema and keeps every table in it", { skip }, async () => {
  const schema = `parallax_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  const store = await openStore(withSchema(PG_URL!, schema));
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    assert.equal(store.dialect, "postgres");
    const tables = await client.query<{ table_schema: string; table_name: string }>(
      "select table_schema, table_name from information_schema.tables where table_name in ('runs', 'trials', 'calls', 'cache', 'kysely_migration') order by table_name",
    );
    const mine = tables.rows.filter((r) => r.table_schema === schema).map((r) => r.table_name);
    assert.deepEqual(mine, ["cache", "calls", "kysely_migration", "runs", "trials"]);
    assert.equal(
      tables.rows.some((r) => r.table_schema === "public"),
      false,
    );
  } finally {
    await store.close();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
});

test("an unreachable PostgreSQL URL names host and port, never the password", async () => {
  // Port 1 on loopback: nothing listens there, so the connect is refused at once.
  const url = "postgres://alice:s3cr3t-pw@127.0.0.1:1/somedb";
  await assert.rejects(openStore(url), (e: Error & { exitCode?: number }) => {
    assert.match(
      e.message,
      /cannot connect to PostgreSQL \(host 127\.0\.0\.1, port 1, database somedb\): .*ECONNREFUSED/,
    );
    assert.doesNotMatch(e.message, /s3cr3t/);
    assert.equal(e.exitCode, 2, "a clean exit 2, not a crash");
    return true;
  });
});

test("PostgreSQL URLs: schema parameter is validated and stripped", () => {
  const parsed = parsePostgresUrl("postgresql://bob:pw@db.example:6543/evals?schema=study_7&sslmode=disable");
  assert.equal(parsed.schema, "study_7");
  assert.equal(parsed.description, "db.example:6543/evals as bob");
  assert.doesNotMatch(parsed.connectionString, /schema=/);
  assert.match(parsed.connectionString, /sslmode=disable/);
  assert.throws(() => parsePostgresUrl("postgres://h/db?schema=x;drop"), /invalid PostgreSQL schema name/);
  assert.throws(() => parsePostgresUrl("postgres://[bad"), /invalid PostgreSQL URL/);
});

test("PostgreSQL: a transaction aborted as a deadlock victim runs again and commits", { skip }, async () => {
  const table = `parallax_deadlock_${process.pid}_${randomBytes(4).toString("hex")}`;
  const [setup, holder, retried] = [0, 1, 2].map(() => new pg.Client({ connectionString: PG_URL }));
  await Promise.all([setup, holder, retried].map((c) => c.connect()));
  try {
    await setup.query(`create table "${table}" (id int primary key, v int)`);
    await setup.query(`insert into "${table}" values (1, 0), (2, 0)`);
    await holder.query("begin");
    await holder.query(`update "${table}" set v = v + 1 where id = 1`);
    let attempts = 0;
    let rowTwoTaken: () => void = () => {};
    const holderMayGo = new Promise<void>((resolve) => {
      rowTwoTaken = resolve;
    });
    // Row 2, then row 1 (held): this transaction waits first, so the deadlock check picks it.
    const victim = retryLockConflicts(async () => {
      attempts++;
      await retried.query("begin");
      try {
        await retried.query(`update "${table}" set v = v + 10 where id = 2`);
        if (attempts === 1) setTimeout(rowTwoTaken, 200);
        await retried.query(`update "${table}" set v = v + 10 where id = 1`);
        await retried.query("commit");
      } catch (error) {
        await retried.query("rollback");
        throw error;
      }
    });
    await holderMayGo;
    await holder.query(`update "${table}" set v = v + 1 where id = 2`);
    await holder.query("commit");
    await victim;
    assert.equal(attempts, 2, "aborted once as the victim, then committed");
    const rows = await setup.query<{ id: number; v: number }>(`select id, v from "${table}" order by id`);
    assert.deepEqual(
      rows.rows.map((r) => r.v),
      [11, 11],
    );
    // Other errors are not retried.
    let plain = 0;
    await assert.rejects(
      retryLockConflicts(async () => {
        plain++;
        await setup.query("select 1/0");
      }),
      /division by zero/,
    );
    assert.equal(plain, 1);
  } finally {
    await setup.query(`drop table if exists "${table}"`);
    await Promise.all([setup, holder, retried].map((c) => c.end()));
  }
});
