/// <reference lib="dom" />
/**
 * Chart layout in headless Chromium at the default viewport width (playwright-core + Debian's
 * /usr/bin/chromium; skipped with a message when it is absent): on a study with long model,
 * benchmark and configuration names and effects of a few points, no chart label is clipped (every
 * text box lies inside its SVG and the viewport, nothing is cut to an ellipsis) and no axis
 * repeats a tick label. The unit checks of the tick helpers run without a browser.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeStudy, buildScorecard, normalizePlan } from "../../src/analysis/index.js";
import { distinctTickFormat, logTicks, niceTicks } from "../../src/report/charts.js";
import { renderReport } from "../../src/report/index.js";
import { plantedTable } from "../analysis/helpers.js";
import { CHROMIUM, describeNeeding, it, needsChromium } from "../helpers/prerequisites.js";

const METHODOLOGY = {
  preregistration: { status: "not preregistered" as const, note: "test" },
  blinding: { blinded: false, blindingIndex: null, details: {}, source: null, note: "not blinded" },
  judgeAgreement: { crossValidated: false, kappa: null, details: {}, source: null, note: "none" },
};

describe("tick helpers", () => {
  it("nice ticks cover the range at a 1-2-5 step", () => {
    // Range 0.043 / 8 = 0.0054: the first 1-2-5 step above it is 0.01.
    assert.deepEqual(niceTicks(-0.031, 0.012, 8), [-0.04, -0.03, -0.02, -0.01, 0, 0.01, 0.02]);
    assert.deepEqual(niceTicks(0, 1, 5), [0, 0.2, 0.4, 0.6, 0.8, 1]);
    assert.deepEqual(logTicks(0.3, 3), [0.5, 1, 2]);
  });

  it("takes the fewest decimals that keep every tick label distinct", () => {
    const pp = (v: number, d: number) => `${(100 * v).toFixed(d)} pp`;
    // A half-point step printed at whole points would read "-1 pp" twice (and "1", "2", "2").
    const format = distinctTickFormat([-0.01, -0.005, 0, 0.005, 0.01], pp);
    assert.deepEqual([-0.01, -0.005, 0, 0.005, 0.01].map(format), ["-1.0 pp", "-0.5 pp", "0.0 pp", "0.5 pp", "1.0 pp"]);
    assert.equal(distinctTickFormat([-0.02, 0, 0.02], pp)(0.02), "2 pp");
  });
});

async function writeLongNamesReport(): Promise<string> {
  const table = plantedTable({
    seed: 5,
    models: {
      "claude-opus-4-6-20260205-with-a-long-model-identifier": 0.05,
      "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8": -0.05,
      m3: 0,
    },
    benchmarks: ["truthfulqa-mc1-generation-and-multiple-choice", "bbq"],
    itemsPerBenchmark: 30,
    effects: { direct: 0, react_with_reflection: -0.004, map_reduce_options_preserving: -0.01 },
    baseline: [0.6, 0.9],
    extraFacet: { name: "format", levels: { mc: 0, oe: 0.05 } },
  });
  const plan = normalizePlan({ bootstrap: { resamples: 200 }, specification_curve: { permutations: 0 } });
  const analysis = await analyzeStudy(table, plan);
  const card = buildScorecard(analysis, METHODOLOGY);
  const html = renderReport({ analysis, methodology: METHODOLOGY }, card, {
    trialsHref: "trials.html",
  });
  const path = join(mkdtempSync(join(tmpdir(), "parallax-layout-")), "report.html");
  writeFileSync(path, html);
  return path;
}

describeNeeding(needsChromium(), "chart layout in headless Chromium", () => {
  it("clips no label and repeats no tick label at the default width", async () => {
    const { chromium } = await import("playwright-core");
    const path = await writeLongNamesReport();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    try {
      // Playwright's default viewport (1280 x 720) is the default width checked here.
      const page = await browser.newPage();
      await page.goto(pathToFileURL(path).href);
      const found = await page.$$eval("figure svg", (svgs) => {
        const charts = svgs.filter((s) => s.querySelector('[aria-label$="axis tick"]'));
        const clipped: string[] = [];
        const repeated: string[] = [];
        const axes: string[] = [];
        for (const [i, svg] of charts.entries()) {
          const box = svg.getBoundingClientRect();
          for (const text of Array.from(svg.querySelectorAll("text"))) {
            const b = text.getBoundingClientRect();
            if (b.width === 0 || b.height === 0) continue;
            const inside =
              b.left >= box.left - 1 && b.right <= box.right + 1 && b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
            const onPage = b.left >= 0 && b.right <= document.documentElement.clientWidth;
            if (!inside || !onPage || (text.textContent ?? "").includes("…"))
              clipped.push(
                `chart ${i}: "${text.textContent}" at [${Math.round(b.left)}, ${Math.round(b.right)}] x [${Math.round(b.top)}, ${Math.round(b.bottom)}] in [${Math.round(box.left)}, ${Math.round(box.right)}] x [${Math.round(box.top)}, ${Math.round(box.bottom)}]`,
              );
          }
          for (const axis of Array.from(svg.querySelectorAll('g[aria-label$="tick label"]'))) {
            const labels = Array.from(axis.querySelectorAll("text")).map((t) => t.textContent ?? "");
            axes.push(`chart ${i} ${axis.getAttribute("aria-label")}: ${labels.join(" | ")}`);
            if (new Set(labels).size !== labels.length) repeated.push(axes[axes.length - 1]);
          }
        }
        return { charts: charts.length, clipped, repeated, axes };
      });
      await page.screenshot({ path: join(tmpdir(), "parallax-layout.png"), fullPage: true });
      assert.ok(found.charts >= 4, `forest plot, heatmap, format gaps, spec curve: ${found.charts}`);
      assert.ok(found.axes.length >= 6, found.axes.join("\n"));
      assert.deepEqual(found.clipped, [], "labels outside their chart or the page");
      assert.deepEqual(found.repeated, [], "axes with a repeated tick label");
    } finally {
      await browser.close();
    }
  });
});
