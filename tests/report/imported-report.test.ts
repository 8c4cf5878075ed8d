/// <reference lib="dom" />
/**
 * The report of an imported study reads as what the import holds: two models' Inspect logs on the
 * same items (ARC-Easy, qwen2.5 and claude-sonnet-4-0, from ../shared/interop) are a comparison of
 * the two models, so the header counts 2 models, the card is the model comparison's (no Scaffold
 * Safety wording), no section is named after the internal compared-models facet, and in headless
 * Chromium (1400 x 900) the card starts on the first screen and the page is no wider than the
 * viewport. One model's log is described: 1 model, a rates card.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { analyzeDirectory } from "../../src/analysis/core/directory.js";
import { analysisRecord } from "../../src/analysis/core/record.js";
import { importLogs } from "../../src/interop/import.js";
import { writeReport } from "../../src/report/index.js";
import { openStore } from "../../src/run/store/open.js";
import { interopDir, interopSkip } from "../interop/shared-logs.js";
import { before, CHROMIUM, describeNeeding, it, needsChromium } from "../helpers/prerequisites.js";

const ARC = ["data_arc_qwen.json", "data_arc_sonnet.json"];

/** Imports the logs into a new study, analyses it and writes its report; returns the report's text and path. */
async function importedReport(logs: string[]): Promise<{ html: string; path: string }> {
  const dir = join(mkdtempSync(join(tmpdir(), "parallax-imported-")), "study");
  await importLogs({ format: "inspect", paths: logs.map((l) => join(interopDir, "inspect-json", l)), target: dir });
  const store = await openStore(dir);
  try {
    const run = (await store.getRun())!;
    const outcome = await analyzeDirectory(dir, store, run);
    const path = join(dir, "report.html");
    await writeReport({ outcome, card: analysisRecord(outcome).scorecard }, { store, run }, path);
    return { html: readFileSync(path, "utf8"), path };
  } finally {
    await store.close();
  }
}

/** Wording of the ScaffoldSafety scorecard that an import of models must not carry. */
const SCAFFOLD_WORDING = ["Scaffold Safety Scorecard", "No composite index", "trend (H4)", "scaffold and format"];

describeNeeding(interopSkip, "the report of an imported study of two models", () => {
  let report: { html: string; path: string };
  before(async () => {
    report = await importedReport(ARC);
  });

  it("counts both models in its header and has the model comparison's card, no ScaffoldSafety wording", () => {
    const lead = /<p class="lead">([^<]*)/.exec(report.html)?.[1] ?? "";
    assert.match(lead, /^8 trials, 2 models, 1 benchmark, /, `the header counts the two imported models: ${lead}`);
    assert.match(report.html, /<h2 id="scorecard">Model comparison scorecard<\/h2>/, "the model comparison card");
    for (const words of SCAFFOLD_WORDING)
      assert.ok(!report.html.includes(words), `no ScaffoldSafety scorecard wording: "${words}"`);
    assert.ok(!/Model compared-models/i.test(report.html), "no section named after the compared-models facet");
    assert.match(report.html, /This study is comparison \(model comparison: /, "the kind line says what it compares");
  });

  it("shows its card on the first screen and stays within 1400 px (Chromium, 1400 x 900)", {
    skip: needsChromium() || false,
  }, async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(pathToFileURL(report.path).href);
      const card = await page.locator('section.kind-card[data-kind="comparison"]').first().boundingBox();
      assert.ok(card, "the comparison card is in the report");
      assert.ok(card.y < 900, `the card starts on the first screen (top ${card.y})`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 1400, `the page is no wider than the viewport (${width} px)`);
    } finally {
      await browser.close();
    }
  });
});

describeNeeding(interopSkip, "the report of an imported study of one model", () => {
  it("counts one model and describes its rates, with no scorecard of a comparison", async () => {
    const { html } = await importedReport([ARC[1]]);
    const lead = /<p class="lead">([^<]*)/.exec(html)?.[1] ?? "";
    assert.match(lead, /^5 trials, 1 model, 1 benchmark, /, `the header counts the one model: ${lead}`);
    assert.match(html, /<h2 id="scorecard">Rates card<\/h2>/, "a single-condition import gets the rates card");
    for (const words of SCAFFOLD_WORDING) assert.ok(!html.includes(words), `no ScaffoldSafety wording: "${words}"`);
    assert.match(html, /one condition described \(rates with intervals\)/, "the kind line says it describes rates");
  });
});
