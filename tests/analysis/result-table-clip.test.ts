/** A result-table column clipped to fit: the terminal cuts its cells to what the other columns leave of the width. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineTable, renderMarkdown, renderText } from "../../src/analysis/index.js";

interface Row {
  cell: string;
  rate: string;
}

const TABLE = defineTable<Row>({
  name: "test clipped cells",
  columns: [
    { key: "cell", header: "cell", cell: (r) => r.cell, clippedToFit: 6 },
    { key: "rate", header: "rate", cell: (r) => r.rate },
  ],
});

const ROWS: Row[] = [
  { cell: "model-a | cot | arithmetic", rate: "81%" },
  { cell: "b", rate: "50%" },
];

describe("a column clipped to fit the terminal", () => {
  it("cuts its cells to the width the other columns leave, the heading whole", () => {
    const lines = renderText(TABLE, ROWS, { width: 20 });
    // "rate" is 4 wide plus 2 spaces: the cell column gets 20 - 6 = 14 characters.
    assert.deepEqual(
      lines,
      ["cell            rate", "--------------  ----", "model-a | cot…  81%", "b               50%"],
      `the long cell is cut to 14 characters with an ellipsis: ${JSON.stringify(lines)}`,
    );
    assert.ok(
      lines.every((line) => line.length <= 20),
      "every line fits the width",
    );
  });

  it("never cuts below its minimum, and not at all without a width or in Markdown", () => {
    const tight = renderText(TABLE, ROWS, { width: 8 });
    assert.equal(tight[2], "model…  81%", "a width of 8 leaves 2 characters: the minimum of 6 holds");
    assert.equal(renderText(TABLE, ROWS)[2], "model-a | cot | arithmetic  81%", "no width: the cell is whole");
    assert.ok(
      renderMarkdown(TABLE, ROWS)[2].includes("model-a \\| cot \\| arithmetic"),
      "the Markdown card keeps the cell whole",
    );
  });
});
