/**
 * The HTML rendering of a result table declared once in the analysis layer
 * (src/analysis/core/result-table.ts): the columns the report shows, each cell escaped text unless
 * the section gives a rich cell (a link, an emphasis) for that column's key.
 */
import { type Rendering, type ResultTable, shownColumns, tableCells } from "../analysis/index.js";
import { type Content, el, type Html, table } from "./html.js";

/** Column key -> the cell as HTML content, where a section wants more than the column's text. */
export type RichCells<Row> = Record<string, (row: Row) => Content>;

const HTML: Rendering = "html";

export interface HtmlTableOptions<Row> {
  rich?: RichCells<Row>;
  /** The `<table>` element's attributes. */
  attrs?: Record<string, string>;
  /** Each row's `<tr>` attributes (e.g. a class that marks a failing row). */
  rowAttrs?: (row: Row) => Record<string, string>;
  /** Column key -> the attributes of that column's `<td>` cells (e.g. a numeric column's class). */
  cellAttrs?: Record<string, Record<string, string>>;
}

export function htmlTable<Row>(
  declared: ResultTable<Row>,
  rows: readonly Row[],
  options: HtmlTableOptions<Row> = {},
): Html {
  const columns = shownColumns(declared, HTML);
  const cells = tableCells(declared, rows, HTML, columns);
  const rich = options.rich ?? {};
  const cellAttrs = options.cellAttrs ?? {};
  const unknown = [...Object.keys(rich), ...Object.keys(cellAttrs)].filter(
    (key) => !columns.some((column) => column.key === key),
  );
  if (unknown.length) throw new Error(`result table "${declared.name}": no shown column ${unknown.join(", ")}`);
  const body: Content[][] = rows.map((row, r) =>
    columns.map((column, c) => (rich[column.key] ? rich[column.key](row) : cells.rows[r][c])),
  );
  if (!options.rowAttrs && !options.cellAttrs) return table(cells.header, body, options.attrs ?? {});
  // The same markup as table(), with the row and cell attributes.
  const { rowAttrs } = options;
  return el(
    "table",
    options.attrs ?? {},
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        cells.header.map((h) => el("th", {}, h)),
      ),
    ),
    el(
      "tbody",
      {},
      body.map((row, r) =>
        el(
          "tr",
          rowAttrs ? rowAttrs(rows[r]) : {},
          row.map((cell, c) => el("td", cellAttrs[columns[c].key] ?? {}, cell)),
        ),
      ),
    ),
  );
}
