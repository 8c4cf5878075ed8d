/**
 * A result table declared once: its columns (heading, unit, how a row reads in each rendering, which
 * renderings show it, whether a narrow terminal keeps it), rendered three ways: terminal text
 * (`renderText`), Markdown for the card files (`renderMarkdown`) and HTML for the report
 * (src/report/result-table.ts). A difference between renderings is a column choice written here,
 * not a second copy of the table.
 */
import { clip, md, textTable } from "./text.js";

/** Where a table is shown: the terminal and text summary, a Markdown card, the HTML report. */
export type Rendering = "text" | "markdown" | "html";

export const RENDERINGS: readonly Rendering[] = ["text", "markdown", "html"];

/** One value for every rendering, or one per rendering (missing renderings take `text`'s). */
export type PerRendering<T> = T | { text: T; markdown?: T; html?: T };

export interface ResultColumn<Row> {
  /** A stable name for the column (the HTML renderer's rich cells are keyed by it). */
  key: string;
  /** The column's heading, e.g. "RD [95% bootstrap CI]"; terser in a terminal where it must be. */
  header: PerRendering<string>;
  /** The unit of the column's numbers ("pp", "%", "logit"), for readers of the declaration and the HTML title. */
  unit?: string;
  /** The cell's text; `rendering` lets a column be terser in a terminal than in the report. */
  cell: (row: Row, rendering: Rendering) => string;
  /** The renderings that show the column (default: all three). */
  shownIn?: readonly Rendering[];
  /** Markdown alignment: numbers right-aligned ("---:"), text left ("---", the default). */
  align?: "left" | "right";
  /** False: a terminal narrower than the table drops this column first (default: kept). */
  keptWhenNarrow?: boolean;
  /**
   * Given a `width`, the terminal cuts this column's cells (not its heading) to what the other
   * columns leave of it, but never below this many characters (default: never cut).
   */
  clippedToFit?: number;
}

/** Markdown's rule row: "|---|---:|" (compact, the default) or "| --- | --- |" (spaced). */
export type MarkdownRule = "compact" | "spaced";

export interface ResultTable<Row> {
  /** What the table shows, in a few words (tests and errors name it). */
  name: string;
  columns: readonly ResultColumn<Row>[];
  markdownRule?: MarkdownRule;
}

/** A table's declaration, checked once: column keys are unique. */
export function defineTable<Row>(table: ResultTable<Row>): ResultTable<Row> {
  const keys = new Set<string>();
  for (const column of table.columns) {
    if (keys.has(column.key))
      throw new Error(`result table "${table.name}": column key "${column.key}" is declared twice`);
    keys.add(column.key);
  }
  return table;
}

/** A per-rendering value as `rendering` shows it. */
export function forRendering<T>(value: PerRendering<T>, rendering: Rendering): T {
  if (typeof value === "object" && value !== null && "text" in value) {
    const perRendering = value as { text: T; markdown?: T; html?: T };
    return perRendering[rendering] ?? perRendering.text;
  }
  return value as T;
}

/** The columns `rendering` shows, in declaration order. */
export function shownColumns<Row>(table: ResultTable<Row>, rendering: Rendering): ResultColumn<Row>[] {
  return table.columns.filter((column) => !column.shownIn || column.shownIn.includes(rendering));
}

/** The table's headings and cell texts as `rendering` shows them. */
export function tableCells<Row>(
  table: ResultTable<Row>,
  rows: readonly Row[],
  rendering: Rendering,
  columns: readonly ResultColumn<Row>[] = shownColumns(table, rendering),
): { header: string[]; rows: string[][] } {
  return {
    header: columns.map((column) => forRendering(column.header, rendering)),
    rows: rows.map((row) => columns.map((column) => column.cell(row, rendering))),
  };
}

/**
 * The fixed-width terminal table (heading, rule, rows; two spaces between columns). With `width`,
 * a table wider than it drops the columns not kept when narrow, so it fits where it can.
 */
export function renderText<Row>(
  table: ResultTable<Row>,
  rows: readonly Row[],
  options: { width?: number } = {},
): string[] {
  const { width } = options;
  const text = (columns: readonly ResultColumn<Row>[]) => {
    const cells = tableCells(table, rows, "text", columns);
    return textTable(...headerAndRows(width === undefined ? cells : clippedToFit(columns, cells, width)));
  };
  const full = shownColumns(table, "text");
  const lines = text(full);
  if (width === undefined || widest(lines) <= width) return lines;
  const narrow = full.filter((column) => column.keptWhenNarrow !== false);
  return narrow.length === full.length ? lines : text(narrow);
}

/** The cells with each `clippedToFit` column cut to what the other columns (two spaces apart) leave of `width`. */
function clippedToFit<Row>(
  columns: readonly ResultColumn<Row>[],
  cells: { header: string[]; rows: string[][] },
  width: number,
): { header: string[]; rows: string[][] } {
  if (columns.every((column) => column.clippedToFit === undefined)) return cells;
  const widths = columns.map((_, i) => Math.max(cells.header[i].length, ...cells.rows.map((row) => row[i].length)));
  const room = columns.map((column, i) => {
    if (column.clippedToFit === undefined) return null;
    const others = widths.reduce((total, w, j) => (j === i ? total : total + w + 2), 0);
    return Math.max(column.clippedToFit, width - others);
  });
  return {
    header: cells.header,
    rows: cells.rows.map((row) => row.map((value, i) => (room[i] === null ? value : clip(value, room[i])))),
  };
}

/** The Markdown table of a card file: heading, rule (with each column's alignment), rows; cells escaped. */
export function renderMarkdown<Row>(table: ResultTable<Row>, rows: readonly Row[]): string[] {
  const columns = shownColumns(table, "markdown");
  const cells = tableCells(table, rows, "markdown", columns);
  const rule = columns.map((column) => (column.align === "right" ? "---:" : "---"));
  const line = (values: string[]) => `| ${values.join(" | ")} |`;
  const ruleLine = table.markdownRule === "spaced" ? line(rule) : `|${rule.join("|")}|`;
  return [line(cells.header.map(md)), ruleLine, ...cells.rows.map((row) => line(row.map(md)))];
}

function headerAndRows(cells: { header: string[]; rows: string[][] }): [string[], string[][]] {
  return [cells.header, cells.rows];
}

function widest(lines: readonly string[]): number {
  return lines.reduce((max, line) => Math.max(max, line.length), 0);
}
