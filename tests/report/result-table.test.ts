/** A result table declared once renders the same columns as text, Markdown and HTML, with its deliberate differences. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineTable, renderMarkdown, renderText } from "../../src/analysis/index.js";
import { el } from "../../src/report/html.js";
import { htmlTable } from "../../src/report/result-table.js";

interface Row {
  condition: string;
  rate: number;
  n: number;
  verdict: string;
}

const ROWS: Row[] = [
  { condition: "cot", rate: 0.81, n: 120, verdict: "improves" },
  { condition: "map|reduce <b>", rate: 0.5, n: 7, verdict: "inconclusive" },
];

const CONTRASTS = defineTable<Row>({
  name: "test contrasts",
  columns: [
    { key: "condition", header: "condition", cell: (r) => r.condition },
    {
      key: "rate",
      header: "rate",
      unit: "%",
      align: "right",
      cell: (r, rendering) => `${Math.round(r.rate * 100)}%${rendering === "html" ? ` (n=${r.n})` : ""}`,
    },
    {
      key: "n",
      header: { text: "n", html: "cases" },
      cell: (r) => String(r.n),
      shownIn: ["text", "html"],
      keptWhenNarrow: false,
    },
    { key: "verdict", header: "verdict", cell: (r) => r.verdict },
  ],
});

describe("a result table declared once", () => {
  it("renders fixed-width text with the text-only and shared columns", () => {
    const lines = renderText(CONTRASTS, ROWS);
    assert.deepEqual(
      lines,
      [
        "condition       rate  n    verdict",
        "--------------  ----  ---  ------------",
        "cot             81%   120  improves",
        "map|reduce <b>  50%   7    inconclusive",
      ],
      "text table: columns aligned two spaces apart, trailing spaces trimmed",
    );
  });

  it("drops the columns a narrow terminal need not keep, only when the table is wider than the width", () => {
    const wide = renderText(CONTRASTS, ROWS, { width: 200 });
    assert.ok(wide[0].includes(" n "), `a wide terminal keeps every column: ${wide[0]}`);
    const narrow = renderText(CONTRASTS, ROWS, { width: 30 });
    assert.ok(!/\bn\b/.test(narrow[0]), `the narrow table drops "n": ${narrow[0]}`);
    assert.equal(narrow[0].split(/\s{2,}/).length, 3, `three columns remain: ${narrow[0]}`);
  });

  it("renders Markdown with escaped cells, alignment and the markdown columns only", () => {
    const lines = renderMarkdown(CONTRASTS, ROWS);
    assert.equal(lines[0], "| condition | rate | verdict |", "markdown header leaves out the text/html-only column");
    assert.equal(lines[1], "|---|---:|---|", "compact rule with the rate right-aligned");
    assert.equal(lines[3], "| map\\|reduce <b> | 50% | inconclusive |", "a pipe in a cell is escaped");
    const spaced = renderMarkdown({ ...CONTRASTS, markdownRule: "spaced" }, ROWS);
    assert.equal(spaced[1], "| --- | ---: | --- |", "spaced rule when the table asks for it");
  });

  it("renders HTML with per-rendering headings, escaped text and rich cells by column key", () => {
    const html = htmlTable(CONTRASTS, ROWS, { rich: { verdict: (r) => el("strong", {}, r.verdict) } }).html;
    assert.ok(html.includes("<th>cases</th>"), `the html heading of "n" is its own: ${html}`);
    assert.ok(html.includes("<td>50% (n=7)</td>"), `the html rate carries n: ${html}`);
    assert.ok(html.includes("map|reduce &lt;b&gt;"), `cell text is escaped: ${html}`);
    assert.ok(html.includes("<td><strong>improves</strong></td>"), `the rich verdict cell is markup: ${html}`);
    assert.throws(() => htmlTable(CONTRASTS, ROWS, { rich: { nope: () => "x" } }), /no shown column nope/);
  });

  it("refuses a declaration with a column key twice", () => {
    assert.throws(
      () => defineTable<Row>({ name: "twice", columns: [CONTRASTS.columns[0], CONTRASTS.columns[0]] }),
      /column key "condition" is declared twice/,
    );
  });
});
