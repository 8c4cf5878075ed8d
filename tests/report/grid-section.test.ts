/// <reference lib="dom" />
/**
 * The grid section of the HTML report, rendered from a grid analysis of a planted table: the
 * GRID card's values, both charts, the scope statement, escaping of model names; and in headless
 * Chromium (skipped with a message when /usr/bin/chromium is absent) that the charts draw their
 * points and no label is clipped.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { pathToFileURL } from "node:url";
import { gridAnalysis, type GridResult } from "../../src/analysis/grid/grid-analysis.js";
import { type AnalysisContext, normalizePlan, num } from "../../src/analysis/index.js";
import { esc, page, raw, render } from "../../src/report/html.js";
import "../../src/report/sections/index.js";
import { type ReportContext, reportSections } from "../../src/report/sections/registry.js";
import { paperDesign, plantedGridTable } from "../analysis/grid-helpers.js";
import { CHROMIUM, describeNeeding, it, needsChromium } from "../helpers/prerequisites.js";

const EVIL = "<b>evil-model</b>";

function sectionHtml(): { html: string; grid: GridResult } {
  const design = paperDesign(
    20,
    {
      bbq: { base: 0.5, template: { T2: 0.1, T3: 0.2, T4: -0.2 }, modelTemplate: { [EVIL]: { T4: -0.3 } } },
      crows_pairs: { base: 0.4, logprobOnly: true },
    },
    { [EVIL]: 0.1, beta: 0, gamma: -0.1 },
  );
  const table = plantedGridTable(design);
  const plan = normalizePlan({ comparison_facet: "template", grid: { resamples: 100 } });
  const grid = gridAnalysis({
    table,
    plan,
    resolved: { comparisonFacet: "template" },
    results: {},
  } as unknown as AnalysisContext);
  assert.ok(!("skipped" in grid), 'expected !("skipped" in grid)');
  const section = reportSections().find((s) => s.name === "grid")!;
  const html = render(section.render({ analysis: { grid } } as unknown as ReportContext));
  return { html, grid: grid as GridResult };
}

describe("grid report section", () => {
  const { html, grid } = sectionHtml();

  it("shows the per-axis attribution naming the planted flip axis, and the |C| = 4 caveat", () => {
    assert.ok(html.includes("Per-axis attribution"), "the attribution heading");
    assert.ok(html.includes("bbq: moves scores: "), "the benchmark's attribution line");
    assert.ok(html.includes("drives flips: template"), "the planted template x model flip is named");
    assert.equal(
      grid.card.tiers.find((t) => t.envelope === "conservative_core" && t.benchmark === "bbq")?.configurations,
      4,
      "the conservative core has four configurations on bbq",
    );
    assert.ok(html.includes("4 caps rho^max at 0.5"), "the caveat under the tiers table");
    assert.ok(/4, [0-9.]+, \d\/\d \*/.test(html), "the four-configuration subset's cell is marked");
  });

  it("shows the card's numbers, both charts and the scope statement", () => {
    assert.ok(html.includes('id="grid"'), "expected html.includes('id=\"grid\"')");
    for (const e of grid.card.entries) {
      if (e.pointScore.value !== null)
        assert.ok(html.includes(num(e.pointScore.value, 3)), "expected html.includes(num(e.pointScore.value, 3))");
      assert.ok(
        html.includes(
          `${num(e.neighbourhood.min, 3)} / ${num(e.neighbourhood.mean, 3)} / ${num(e.neighbourhood.max, 3)}`,
        ),
        "expected html.includes( `${num(e.neighbourhood.min, 3)} / ${num(e.neighbourhood.mean, 3)} / ${nu...",
      );
    }
    assert.equal(html.match(/<figure>/g)?.length ?? 0, 2, "the neighbourhood strip plot and the flip matrix");
    assert.equal(html.match(/aria-label="dot"/g)?.length ?? 0, 1);
    assert.equal(html.match(/aria-label="cell"/g)?.length ?? 0, 1);
    for (const line of grid.card.scope) assert.ok(html.includes(esc(line)), line);
  });

  it("escapes model names everywhere, charts included", () => {
    assert.ok(!html.includes(EVIL), "expected !html.includes(EVIL)");
    assert.ok(
      html.includes("&lt;b&gt;evil-model&lt;/b&gt;"),
      'expected html.includes("&lt;b&gt;evil-model&lt;/b&gt;")',
    );
  });
});

describeNeeding(needsChromium(), "grid section in headless Chromium", () => {
  it("draws every configuration's point and the flip matrix, with no label clipped", async () => {
    const { html, grid } = sectionHtml();
    const path = join(mkdtempSync(join(tmpdir(), "parallax-grid-")), "grid.html");
    writeFileSync(path, page("grid", raw(html)));
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    try {
      const p = await browser.newPage();
      await p.goto(pathToFileURL(path).href);
      const found = await p.evaluate(() => {
        const charts = Array.from(document.querySelectorAll("figure svg")).filter((s) =>
          s.querySelector('[aria-label$="axis tick"]'),
        );
        const clipped: string[] = [];
        for (const svg of charts) {
          const box = svg.getBoundingClientRect();
          for (const text of Array.from(svg.querySelectorAll("text"))) {
            const b = text.getBoundingClientRect();
            if (b.width === 0 || b.height === 0) continue;
            if (b.left < box.left - 1 || b.right > box.right + 1 || b.right > document.documentElement.clientWidth)
              clipped.push(text.textContent ?? "");
          }
        }
        return {
          charts: charts.length,
          dots: charts[0]?.querySelectorAll('g[aria-label="dot"] circle').length ?? 0,
          cells: charts[1]?.querySelectorAll('g[aria-label="cell"] rect').length ?? 0,
          bold: document.querySelectorAll("b").length,
          clipped,
        };
      });
      const points = grid.grids.reduce((total, g) => total + g.configurations.length * g.models.length, 0);
      const pairs = grid.envelopes[0].benchmarks.reduce((total, b) => total + (b.rankFlip?.pairs.length ?? 0), 0);
      assert.equal(found.charts, 2);
      assert.equal(found.dots, points);
      assert.equal(found.cells, pairs);
      assert.equal(found.bold, 0, "a model name never becomes markup");
      assert.deepEqual(found.clipped, []);
    } finally {
      await browser.close();
    }
  });
});
