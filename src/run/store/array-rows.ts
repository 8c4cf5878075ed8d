/**
 * A large read's rows as arrays of their columns in select order. On SQLite better-sqlite3 then
 * builds no object per row (its raw mode, asked for through the statement cache's `ARRAY_ROWS`
 * comment, so the read still goes through kysely's connection); PostgreSQL's rows are read out
 * of pg's objects in the same order. The analysis's reads of every trial and call use it.
 */
import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { StoreDatabase } from "./schema.js";
import { ARRAY_ROWS } from "./statement-cache.js";

/** A selected column's name in the row: "calls.trial_id" is read as "trial_id". */
type Bare<C extends string> = C extends `${string}.${infer Name}` ? Name : C;

/** Each selected column's position in an array row, by its name in the row. */
export function columnPositions<const C extends readonly string[]>(columns: C): { [K in Bare<C[number]>]: number } {
  return Object.fromEntries(columns.map((column, i) => [bareName(column), i])) as { [K in Bare<C[number]>]: number };
}

function bareName(column: string): string {
  return column.slice(column.lastIndexOf(".") + 1);
}

/** The rows of a select of exactly `columns` (in that order), each as an array of its values. */
export async function arrayRows(
  db: Kysely<StoreDatabase>,
  dialect: "sqlite" | "postgres",
  query: Compilable<object>,
  columns: readonly string[],
): Promise<unknown[][]> {
  const compiled = query.compile();
  if (dialect === "sqlite") {
    const marked: CompiledQuery<unknown[]> = { ...compiled, sql: ARRAY_ROWS + compiled.sql };
    return (await db.executeQuery(marked)).rows;
  }
  const names = columns.map(bareName);
  const { rows } = await db.executeQuery(compiled as CompiledQuery<Record<string, unknown>>);
  return rows.map((row) => names.map((name) => row[name]));
}
