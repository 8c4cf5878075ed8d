/**
 * The SQLite store hands kysely a database that reuses compiled statements: the same SQL gets
 * the same statement, a statement still being iterated is not handed out again, old texts are
 * let go, and queries through kysely give the same rows as before.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { type Generated, Kysely, SqliteDialect } from "kysely";
import { ARRAY_ROWS, reusingStatements } from "../../src/run/store/statement-cache.js";

function database() {
  const db = new Database(":memory:");
  db.exec("create table t (id integer primary key, v text)");
  return db;
}

describe("reusingStatements", () => {
  test("the same SQL text gets the same compiled statement; another text gets its own", () => {
    const db = database();
    const reusing = reusingStatements(db);
    const a = reusing.prepare("select * from t where id = ?");
    assert.equal(reusing.prepare("select * from t where id = ?"), a);
    assert.notEqual(reusing.prepare("select * from t where v = ?"), a);
    reusing.close();
  });

  test("a statement being iterated is not handed to a second query", () => {
    const db = database();
    db.exec("insert into t (v) values ('x'), ('y'), ('z')");
    const reusing = reusingStatements(db);
    const text = "select v from t order by id";
    const rows = reusing.prepare(text).iterate([]) as IterableIterator<{ v: string }>;
    assert.deepEqual(rows.next().value, { v: "x" });
    const second = reusing.prepare(text);
    assert.deepEqual(second.all([]), [{ v: "x" }, { v: "y" }, { v: "z" }]);
    assert.deepEqual(
      [...rows].map((r) => r.v),
      ["y", "z"],
    );
    reusing.close();
  });

  test("a text marked ARRAY_ROWS reads rows as arrays; the same query unmarked still reads objects", () => {
    const db = database();
    db.exec("insert into t (v) values ('x'), ('y')");
    const reusing = reusingStatements(db);
    const text = "select id, v from t order by id";
    assert.deepEqual(reusing.prepare(ARRAY_ROWS + text).all([]), [
      [1, "x"],
      [2, "y"],
    ]);
    assert.deepEqual(reusing.prepare(text).all([]), [
      { id: 1, v: "x" },
      { id: 2, v: "y" },
    ]);
    assert.deepEqual(
      reusing.prepare(ARRAY_ROWS + text).all([]),
      [
        [1, "x"],
        [2, "y"],
      ],
      "the kept statement stays raw",
    );
    reusing.close();
  });

  test("keeps a bounded number of texts, the most recently used", () => {
    const db = database();
    const reusing = reusingStatements(db);
    const first = reusing.prepare("select 0 as n");
    for (let i = 1; i <= 300; i++) reusing.prepare(`select ${i} as n`);
    assert.notEqual(reusing.prepare("select 0 as n"), first, "the oldest text was let go");
    const recent = reusing.prepare("select 300 as n");
    assert.equal(reusing.prepare("select 300 as n"), recent);
    reusing.close();
  });

  test("kysely reads and writes through it as through the database itself", async () => {
    const db = new Kysely<{ t: { id: Generated<number>; v: string } }>({
      dialect: new SqliteDialect({ database: reusingStatements(database()) }),
    });
    for (let i = 0; i < 3; i++) {
      for (const v of ["a", "b"])
        await db
          .insertInto("t")
          .values({ v: `${v}${i}` })
          .execute();
    }
    const rows = await db.selectFrom("t").select("v").where("v", "like", "a%").orderBy("id").execute();
    assert.deepEqual(
      rows.map((r) => r.v),
      ["a0", "a1", "a2"],
    );
    // kysely holds its one connection while a stream lasts; the same read streamed twice.
    for (let round = 0; round < 2; round++) {
      const streamed: string[] = [];
      for await (const row of db.selectFrom("t").select("v").orderBy("id").stream()) streamed.push(row.v);
      assert.deepEqual(streamed, ["a0", "b0", "a1", "b1", "a2", "b2"]);
    }
    await db.destroy();
  });
});
