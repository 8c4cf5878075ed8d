/**
 * The perturbation audit's result tables (src/analysis/audit/audit-tables.ts) on constructed
 * rows: the per-cell table is the terminal's summary, the card's status table and the report's
 * row at once, each showing its own columns; where two renderings show a column, they agree.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { perturbationAudit } from "../../src/analysis/audit/audit-analysis.js";
import {
  auditCellsTable,
  auditGlanceTable,
  familyDeltasTable,
  gateEvidenceTable,
  integrityTable,
} from "../../src/analysis/audit/audit-tables.js";
import { type AnalysisContext, normalizePlan, renderMarkdown, tableCells } from "../../src/analysis/index.js";
import { build } from "../helpers/audit-rows.js";

const { rows, facts } = build();
const audit = perturbationAudit({
  table: { rows },
  plan: normalizePlan({ audit: { resamples: 100 } }),
  integrityFacts: facts,
} as unknown as AnalysisContext);
assert.ok(!("skipped" in audit), "the constructed rows are audited");

test("the per-cell table: the terminal's 13 columns, the card's 8, the report's 21", () => {
  const text = tableCells(auditCellsTable, audit.cells, "text");
  const markdown = tableCells(auditCellsTable, audit.cells, "markdown");
  const html = tableCells(auditCellsTable, audit.cells, "html");
  assert.deepEqual(text.header, [
    "cell",
    ...["s_orig", "Δfmt", "Δsem", "Δattr", "CSR", "95% CI", "Pr(CSR>1)", "seed CV", "gates"],
    ...["raw verdict", "status", "flags"],
  ]);
  assert.deepEqual(markdown.header, [
    ...["cell", "archetype", "baseline", "s_orig (n)", "raw verdict", "status", "flags", "reason"],
  ]);
  assert.equal(html.header.length, 21, html.header.join(", "));
  assert.deepEqual(html.header.slice(3, 7), ["|Δ_format|", "|Δ_semantic|", "|Δ_attribute|", "|Δ_placebo|"]);
  audit.cells.forEach((c, r) => {
    const at = (cells: { header: string[]; rows: string[][] }, heading: string) =>
      cells.rows[r][cells.header.indexOf(heading)];
    for (const heading of ["CSR", "95% CI", "status"])
      assert.equal(at(text, heading), at(html, heading), `${c.cell}: ${heading} alike in terminal and report`);
    assert.equal(at(text, "Δfmt"), at(html, "|Δ_format|"), `${c.cell}: the format delta`);
    assert.ok(at(markdown, "s_orig (n)").endsWith(`(${c.original.n})`), `${c.cell}: the card gives n`);
    assert.equal(at(text, "gates").split(" ").length, 6, `${c.cell}: six gate marks in one column`);
    assert.match(at(html, "G1"), /^(pass|FAIL)/, `${c.cell}: the report's G1 column`);
  });
});

test("the glance table: the terminal names a cell by its label and marks each gate; the report names failed gates", () => {
  const glance = audit.cells.map((cell) => ({ cell, label: `label ${cell.benchmark}` }));
  const declared = auditGlanceTable(["G1", "G2", "G3", "G4", "G5", "G6"]);
  const text = tableCells(declared, glance, "text");
  const html = tableCells(declared, glance, "html");
  assert.deepEqual(text.header, ["cell", "CSR [95% CI]", "G1 G2 G3 G4 G5 G6", "status", "flags"]);
  assert.deepEqual(html.header, ["cell", "CSR [95% CI]", "gates failed", "status"]);
  glance.forEach((row, r) => {
    assert.equal(text.rows[r][0], row.label);
    assert.equal(html.rows[r][0], row.cell.cell);
    const failed = row.cell.status.gates.filter((g) => !g.passed).map((g) => g.id);
    assert.equal(html.rows[r][2], failed.join(", ") || "none", `${row.cell.cell}: the failed gates`);
    assert.equal((text.rows[r][2].match(/✗/g) ?? []).length, failed.length, `${row.cell.cell}: one ✗ per failed gate`);
  });
});

test("the card escapes a gate's detail once; the integrity table words its drops per rendering", () => {
  const cell = structuredClone(audit.cells[0]);
  cell.status.gates[0] = { ...cell.status.gates[0], passed: true, implementation: "implemented", detail: "a | b" };
  assert.ok(
    renderMarkdown(gateEvidenceTable, [cell])[2].startsWith(`| ${cell.cell} | pass (implemented): a \\| b |`),
    renderMarkdown(gateEvidenceTable, [cell])[2],
  );
  const p = cell.parseability;
  const markdown = tableCells(integrityTable, [cell], "markdown");
  const html = tableCells(integrityTable, [cell], "html");
  assert.ok(markdown.rows[0].at(-1)!.endsWith(`${p.droppedPairs}/${p.pairs} pairs dropped`), markdown.rows[0].join());
  assert.ok(html.rows[0][2].endsWith(`${p.droppedPairs} of ${p.pairs} pairs dropped`), html.rows[0].join());
  assert.equal(html.header.at(-1), "placebo specificity");
  assert.equal(markdown.header[2], "not applicable per family");
});

test("the card's family deltas table is well-formed Markdown: the |Δ| headings' pipes escaped, one cell per rule column", () => {
  const lines = renderMarkdown(familyDeltasTable, audit.cells);
  const cellsOf = (line: string) => line.split(/(?<!\\)\|/).length - 2;
  const columns = cellsOf(lines[1]);
  assert.equal(columns, familyDeltasTable.columns.length, `rule row: ${lines[1]}`);
  for (const line of [lines[0], ...lines.slice(2)]) assert.equal(cellsOf(line), columns, `row: ${line}`);
  assert.ok(lines[0].includes("\\|Δ_fmt\\|"), `the heading's pipes are escaped: ${lines[0]}`);
  assert.equal(lines.length, 2 + audit.cells.length, "one row per audited cell");
});
