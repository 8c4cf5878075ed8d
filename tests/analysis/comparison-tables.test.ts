/**
 * The comparison kind's result tables, each declared once: the renderings show the columns and
 * headings each has always shown (the report's risk ratio and split p values, the terminal's
 * terse headings), and the card file's NNH table reads as it did when it was written by hand.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CONTRAST_TABLE,
  forRendering,
  NNH_TABLE,
  type NnhRow,
  PAIRWISE_TABLE,
  type PairwiseContrast,
  RESIDUAL_NNH_TABLE,
  renderMarkdown,
  renderText,
  shownColumns,
} from "../../src/analysis/index.js";
import { htmlTable } from "../../src/report/result-table.js";

const NNH_ROW: NnhRow = {
  scope: "pooled · mc",
  kind: "pooled",
  format: "mc",
  condition: "map_reduce",
  riskDifference: -0.094,
  rdCi95: [-0.156, -0.031],
  nnh: { value: 10.6, ci95: null, direction: "harm" },
  equivalent: false,
  verdict: "degrades",
};

const PAIR: PairwiseContrast = {
  first: "direct",
  second: "map_reduce",
  rateFirst: 0.605,
  rateSecond: 0.57,
  riskDifference: -0.035,
  oddsRatio: 0.84,
  ci95: [0.65, 1.1],
  z: -1.27,
  p: 0.203,
  pAdjusted: 0.406,
};

describe("the comparison tables declared once", () => {
  it("shows the risk ratio in the report only, with the report's longer headings", () => {
    const keys = (rendering: "text" | "html") => shownColumns(CONTRAST_TABLE, rendering).map((c) => c.key);
    assert.ok(!keys("text").includes("rr"), `the terminal leaves the RR out: ${keys("text")}`);
    assert.ok(keys("html").includes("rr"), `the report shows the RR: ${keys("html")}`);
    const p = CONTRAST_TABLE.columns.find((c) => c.key === "p");
    assert.equal(p && forRendering(p.header, "text"), "p raw / adj", "terminal heading of the p column");
    assert.equal(p && forRendering(p.header, "html"), "p raw / adjusted", "report heading of the p column");
  });

  it("writes the card's NNH table as the hand-written Markdown did", () => {
    const lines = renderMarkdown(NNH_TABLE, [NNH_ROW]);
    assert.deepEqual(
      lines.slice(0, 2),
      [
        "| scope | configuration | RD [95% CI] | NNT/NNH [95% CI] | TOST-equivalent | verdict |",
        "|---|---|---:|---:|---|---|",
      ],
      "heading and rule with the numbers right-aligned",
    );
    assert.equal(
      lines[2],
      "| pooled · mc | map_reduce | -9.4 pp [-15.6 pp, -3.1 pp] | NNH 11 | no | degrades |",
      "a row: the RD with its interval, the NNH rounded up",
    );
    const residual = renderMarkdown(RESIDUAL_NNH_TABLE, []);
    assert.equal(residual[1], "|---|---:|---:|---:|---|", "the residual table's rule");
  });

  it("reads the pairwise p values in one terminal column and two report columns", () => {
    const text = renderText(PAIRWISE_TABLE, [PAIR]);
    assert.match(text[0], /p raw \/ adj$/, `terminal heading: ${text[0]}`);
    assert.match(text[2], /0\.84 \[0\.65, 1\.10\]\s+0\.203 \/ 0\.406$/, `terminal row: ${text[2]}`);
    const html = htmlTable(PAIRWISE_TABLE, [PAIR]).html;
    assert.ok(html.includes("<th>p</th><th>p adjusted</th>"), `report headings: ${html}`);
    assert.ok(html.includes("<td>0.84 [0.65, 1.10]</td><td>0.203</td><td>0.406</td>"), `report cells: ${html}`);
  });
});
