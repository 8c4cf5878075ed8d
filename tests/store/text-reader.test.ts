/**
 * The store's text cache (texts.ts TextReader) is bounded by the characters it keeps, not by how
 * many texts: a text read again while the cache holds it costs no query, and texts beyond the
 * bound push the cache out, so a long text cannot keep the store's memory growing.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { TextReader } from "../../src/run/store/texts.js";

interface TextsTable {
  texts: { key: string; text: string };
}

/** A texts table of `texts`, and a count of the queries run on it. */
function textsDb(texts: Record<string, string>): { db: Kysely<TextsTable>; queries: () => number } {
  const database = new Database(":memory:");
  database.exec("create table texts (key text primary key, text text not null)");
  const insert = database.prepare("insert into texts (key, text) values (?, ?)");
  for (const [key, text] of Object.entries(texts)) insert.run(key, text);
  let count = 0;
  const db = new Kysely<TextsTable>({
    dialect: new SqliteDialect({ database }),
    log: (event) => {
      if (event.level === "query") count++;
    },
  });
  return { db, queries: () => count };
}

describe("the store's text cache", () => {
  const texts = { a: "x".repeat(60), b: "y".repeat(60), c: "z".repeat(10) };

  test("keeps texts up to its bound in characters, then starts again", async () => {
    const { db, queries } = textsDb(texts);
    const reader = new TextReader(db, 100);
    assert.deepEqual(await reader.texts(["a"]), new Map([["a", texts.a]]));
    assert.equal(queries(), 1, "a text read the first time is queried");
    await reader.texts(["a", "c"]);
    assert.equal(queries(), 2, "only the text not held is queried");
    await reader.texts(["a", "c"]);
    assert.equal(queries(), 2, "texts held (70 characters) cost no query");
    assert.deepEqual(await reader.texts(["b"]), new Map([["b", texts.b]]));
    await reader.texts(["a"]);
    assert.equal(queries(), 4, "holding b (60 more characters than the 100) let a go");
    await db.destroy();
  });

  test("holds what fits however many texts it is", async () => {
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, `t${i}`]));
    const { db, queries } = textsDb(many);
    const reader = new TextReader(db, 10_000);
    await reader.texts(Object.keys(many));
    const first = queries();
    const again = await reader.texts(Object.keys(many));
    assert.equal(again.size, 300, "every text is given back");
    assert.equal(queries(), first, "300 short texts within the bound are all held");
    await db.destroy();
  });
});
