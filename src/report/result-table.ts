/**
 * The HTML rendering of a result table declared once in the analysis layer
 * (src/analysis/core/result-table.ts): the columns the report shows, each cell escaped text unless
 * the section gives a rich cell (a link, an emphasis) for that column's key.
 */
import { type Rendering, type ResultTable, shownColumns, tableCells } from "../analysis/index.js";
import { type Content, type Html, table } from "./html.js";

/** Column key -> the cell as HTML content, where a section wants more than the column's text. */
export type RichCells<Row> = Record<string, (row: Row) => Content>;

const HTML: Rendering = "html";

export function htmlTable<Row>(
  declared: ResultTable<Row>,
  rows: readonly Row[],
  options: { rich?: RichCells<Row>; attrs?: Record<string, string> } = {},
): Html {
  const columns = shownColumns(declared, HTML);
  const cells = tableCells(declared, rows, HTML, columns);
  const rich = options.rich ?? {};
  const unknown = Object.keys(rich).filter((key) => !columns.some((column) => column.key === key));
  if (unknown.length) throw new Error(`result table "${declared.name}": no shown column ${unknown.join(", ")}`);
  const body: Content[][] = rows.map((row, r) =>
    columns.map((column, c) => (rich[column.key] ? rich[column.key](row) : cells.rows[r][c])),
  );
  return table(cells.header, body, options.attrs ?? {});
}
