/**
 * A column of an exported table (the trials and calls tables of `parallax export`), declared
 * with its type so that every format writes it the same way whatever the data: Parquet takes its
 * physical type from here, never from the values, and a column a study leaves empty is still
 * written with its declared type.
 */

/** A column's type: `integer` counts, `number` rates, costs and times, `boolean` flags, `text` the rest (nested values as JSON text). */
export type ColumnType = "integer" | "number" | "boolean" | "text";

export interface TableColumn {
  name: string;
  type: ColumnType;
  /** One line for the documentation table (docs/INTEROP.md). */
  what: string;
}
