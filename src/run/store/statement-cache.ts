/**
 * better-sqlite3 compiles a statement on every `prepare`, and kysely's SQLite driver prepares each
 * query afresh. SQLite codes a table's triggers into every statement that writes it, so the
 * runner's few per-trial statements cost more to compile than to run. This hands kysely a
 * database whose `prepare` reuses a compiled statement for the same SQL text.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Distinct SQL texts kept compiled; queries with `in (...)` lists of many lengths come and go. */
const STATEMENTS_KEPT = 256;

/**
 * A query whose SQL starts with this comment returns each row as an array of its columns in
 * select order (better-sqlite3's raw mode): a large read then builds no object per row.
 */
export const ARRAY_ROWS = "/* array rows */ ";

export function reusingStatements(database: BetterSqlite3.Database): SqliteDatabase {
  const compiled = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      const kept = compiled.get(sql);
      // A statement still being iterated (a streamed read) cannot serve a second query.
      if (kept !== undefined && !kept.busy) {
        compiled.delete(sql);
        compiled.set(sql, kept);
        return kept;
      }
      const statement = database.prepare(sql);
      if (sql.startsWith(ARRAY_ROWS)) statement.raw(true);
      if (kept === undefined) {
        compiled.set(sql, statement);
        if (compiled.size > STATEMENTS_KEPT) compiled.delete(compiled.keys().next().value as string);
      }
      return statement;
    },
  };
}
