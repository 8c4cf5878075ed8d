/**
 * SQL for tests that read the store's rows directly: a column that may hold a reference to the
 * shared `texts` table (src/run/store/texts.ts) read as the JSON it stands for.
 */

/** A trial's condition JSON, as the column `condition`. */
export const STORED_CONDITION =
  "coalesce((select text from texts where key = substr(condition, 2) and condition like '@%'), condition) as condition";
