/**
 * The configuration grid's result tables (src/analysis/grid/grid-tables.ts, the card's receipt and
 * the attribution table), on a planted grid: each rendering shows the columns its declaration
 * names, and where two renderings show the same column they show the same numbers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { axisAttributionTable, attributionRows } from "../../src/analysis/grid/attribution.js";
import { receiptTable } from "../../src/analysis/grid/card.js";
import { gridAnalysis, type GridResult } from "../../src/analysis/grid/grid-analysis.js";
import { dispersionRows, dispersionTable, tierRows, tiersTable } from "../../src/analysis/grid/grid-tables.js";
import { type AnalysisContext, normalizePlan, renderMarkdown, tableCells } from "../../src/analysis/index.js";
import { paperDesign, plantedGridTable } from "./grid-helpers.js";

function planted(): GridResult {
  const design = paperDesign(
    20,
    {
      bbq: { base: 0.5, template: { T2: 0.1, T3: 0.2, T4: -0.2 }, modelTemplate: { a: { T4: -0.3 } } },
      crows_pairs: { base: 0.4, logprobOnly: true },
    },
    { a: 0.1, b: 0, c: -0.1 },
  );
  const grid = gridAnalysis({
    table: plantedGridTable(design),
    plan: normalizePlan({ comparison_facet: "template", grid: { resamples: 50 } }),
    resolved: { comparisonFacet: "template" },
    results: {},
  } as unknown as AnalysisContext);
  assert.ok(!("skipped" in grid), "the planted grid is analysed");
  return grid as GridResult;
}

const g = planted();

test("the neighbourhood table: n and min, mean, max apart in the terminal, one column with the ranges in the report", () => {
  const declared = dispersionTable(g.card.thresholds);
  const rows = dispersionRows(g.card.entries, g.envelopes[0].benchmarks);
  const text = tableCells(declared, rows, "text");
  const html = tableCells(declared, rows, "html");
  const cfr = g.card.thresholds.map((t) => `CFR_${t}`);
  assert.deepEqual(text.header, ["model / benchmark", "n", "min", "mean", "max", "SDI", ...cfr, "tau_R"]);
  assert.deepEqual(html.header.slice(0, 3), ["model / benchmark", "point score", "min / mean / max"]);
  assert.equal(html.header.at(-1), "τ_R", "the report's heading is Greek");
  assert.equal(rows.length, g.card.entries.length, "one row per card entry");
  rows.forEach((row, r) => {
    assert.equal(text.rows[r][1], String(row.n), `row ${r}: n is the dispersion's`);
    assert.equal(html.rows[r][2], text.rows[r].slice(2, 5).join(" / "), `row ${r}: the same min, mean and max`);
    // The report's SDI starts with the terminal's point and adds the resample range.
    assert.ok(html.rows[r][3].startsWith(text.rows[r][5]), `row ${r}: SDI ${html.rows[r][3]} vs ${text.rows[r][5]}`);
  });
  assert.ok(
    html.rows.some((row) => / \[.+, .+\]$/.test(row[3])),
    "some SDI carries its configuration-resample range",
  );
});

test("the tiers table: the same |C|, rho_flip^max and orderings in both renderings, headed differently", () => {
  const names = g.envelopes.map((e) => e.name);
  const rows = tierRows(g.envelopes, g.card.tiers);
  const text = tableCells(tiersTable(names), rows, "text");
  const html = tableCells(tiersTable(names), rows, "html");
  assert.deepEqual(text.header, ["benchmark: |C| rho^max ord", ...names]);
  assert.deepEqual(
    html.header.slice(1),
    names.map((n) => `${n}: |C|, ρ_flip max, orderings`),
  );
  assert.deepEqual(
    html.rows.map((row) => row.map((c) => c.replaceAll(",", ""))),
    text.rows,
    "the report's cells are the terminal's with commas",
  );
  assert.ok(
    text.rows.flat().some((c) => c.endsWith(" *")),
    "a four-configuration subset is marked",
  );
});

test("the attribution table shows the same cells in the terminal and the report, with spelled-out headings there", () => {
  const rows = attributionRows(g.card.attribution);
  assert.ok(rows.length > 0, "the planted grid has an attribution");
  const text = tableCells(axisAttributionTable, rows, "text");
  const html = tableCells(axisAttributionTable, rows, "html");
  assert.deepEqual(html.rows, text.rows);
  assert.deepEqual(text.header.slice(3), ["mean |d|", "max |d|", "reversals", "rate", "share"]);
  assert.deepEqual(html.header.slice(3), ["mean |Δ|", "max |Δ|", "reversals", "reversal rate", "share of reversals"]);
});

test("the receipt: the card escapes a pipe in a value; the report points to the card for the weights hash", () => {
  const receipt = [
    { axis: "template", value: "T|1" },
    { axis: "weights hash", value: "abc" },
  ];
  assert.deepEqual(renderMarkdown(receiptTable, receipt), [
    "| axis | value |",
    "| --- | --- |",
    "| template | T\\|1 |",
    "| weights hash | abc |",
  ]);
  const html = tableCells(receiptTable, receipt, "html");
  assert.deepEqual(html.header, ["axis", "reference value"]);
  assert.equal(html.rows[1][1], "per model: see the card");
});
