/** The HTML rendering of a declared table with row and cell attributes: table()'s markup, with those attributes. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineTable } from "../../src/analysis/index.js";
import { table } from "../../src/report/html.js";
import { htmlTable } from "../../src/report/result-table.js";

interface Row {
  check: string;
  status: "pass" | "fail";
  cells: number;
}

const CHECKS = defineTable<Row>({
  name: "test checks",
  columns: [
    { key: "check", header: "check", cell: (r) => r.check },
    { key: "status", header: "status", cell: (r) => r.status },
    { key: "cells", header: "cells", cell: (r) => String(r.cells) },
  ],
});

const ROWS: Row[] = [
  { check: "a <b>", status: "fail", cells: 3 },
  { check: "c", status: "pass", cells: 0 },
];

describe("row and cell attributes of an HTML result table", () => {
  it("marks each row and the named column's cells, escaping the cells as table() does", () => {
    const html = htmlTable(CHECKS, ROWS, {
      attrs: { class: "checks" },
      rowAttrs: (r) => ({ class: r.status === "fail" ? "fail" : "" }),
      cellAttrs: { cells: { class: "num" } },
    }).html;
    assert.equal(
      html,
      '<table class="checks"><thead><tr><th>check</th><th>status</th><th>cells</th></tr></thead><tbody>' +
        '<tr class="fail"><td>a &lt;b&gt;</td><td>fail</td><td class="num">3</td></tr>' +
        '<tr class=""><td>c</td><td>pass</td><td class="num">0</td></tr></tbody></table>',
      "the rows carry their class and the cells column its class",
    );
  });

  it("without them, is table()'s markup exactly", () => {
    const expected = table(
      ["check", "status", "cells"],
      ROWS.map((r) => [r.check, r.status, String(r.cells)]),
    ).html;
    assert.equal(htmlTable(CHECKS, ROWS).html, expected, "no attributes: the same markup as table()");
  });

  it("refuses cell attributes for a column the report does not show", () => {
    assert.throws(
      () => htmlTable(CHECKS, ROWS, { cellAttrs: { verdict: { class: "num" } } }),
      /no shown column verdict/,
      "an unknown column key is an error, not ignored",
    );
  });
});
