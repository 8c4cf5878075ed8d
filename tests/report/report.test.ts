/// <reference lib="dom" />
/**
 * The HTML report: written offline with server-side SVG charts, opened in headless Chromium
 * (playwright-core + Debian's /usr/bin/chromium; skipped with a message when it is absent, CI
 * installs it). Charts render with a size, a trial link opens that trial's messages, and a
 * model output holding <script> is shown as text and never runs.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { pathToFileURL } from "node:url";
import { analyzeDirectory, buildScorecard, cellId, normalizePlan } from "../../src/analysis/index.js";
import { TRIALS_PER_PAGE, writeReport } from "../../src/report/index.js";
import { openStore } from "../../src/run/store/open.js";
import { type PlantedTrial, writeLargeStudy } from "../viewer/fixture.js";
import { HOSTILE_OUTPUT, writeStudyFixture } from "./study-fixture.js";
import { after, before, CHROMIUM, describeNeeding, it, needsChromium } from "../helpers/prerequisites.js";

/** The id of the cell section of a trials page that holds the trial's article. */
function cellHolding(pageHtml: string, trialId: string): string {
  const before = pageHtml.slice(0, pageHtml.indexOf(`id="t-${trialId}"`));
  return [...before.matchAll(/<section id="(cell-[^"]+)">/g)].at(-1)![1];
}

async function buildReport() {
  const { dir, hostileTrialId } = await writeStudyFixture();
  const store = await openStore(dir);
  try {
    const run = (await store.getRun())!;
    const plan = normalizePlan({ bootstrap: { resamples: 200 }, specification_curve: { permutations: 0 } });
    const outcome = await analyzeDirectory(dir, store, run, { plan });
    const card = buildScorecard(outcome.analysis, outcome.methodology);
    const paths = await writeReport({ outcome, card }, { store, run }, join(dir, "report.html"));
    return { dir, hostileTrialId, paths, card };
  } finally {
    await store.close();
  }
}

describe("HTML report (static checks)", () => {
  it("is self-contained, script-free, escapes model output and reads the blinding file", async () => {
    const { paths, hostileTrialId, card } = await buildReport();
    const report = readFileSync(paths.report, "utf8");
    const index = readFileSync(paths.trials, "utf8");
    // 48 trials fit one page: the index links it, and the page holds every trial.
    assert.deepEqual(paths.pages, ["trials-0001.html"]);
    assert.ok(index.includes('href="trials-0001.html"'), "expected index.includes('href=\"trials-0001.html\"')");
    const trials = readFileSync(join(paths.trials, "..", paths.pages[0]), "utf8");
    for (const html of [report, index, trials]) {
      assert.doesNotMatch(html, /<script/i, "no script element, not even an escaped one in raw form");
      assert.doesNotMatch(html, /(src|href)="https?:/, "no network resources");
    }
    assert.ok(trials.includes("&lt;script&gt;window.__pwned = 1;"), "the hostile output appears escaped");
    assert.ok(trials.includes(`id="t-${hostileTrialId}"`), 'expected trials.includes(`id="t-${hostileTrialId}"`)');
    // The report links the cell holding the trial, on the page that holds it (not each trial).
    assert.ok(
      report.includes(`href="trials-0001.html#${cellHolding(trials, hostileTrialId)}"`),
      'expected report.includes(`href="trials-0001.html#${cellHolding(trials, hostileTrialId)}"`)',
    );
    assert.doesNotMatch(report, /#t-/, "no per-trial links: report.html does not grow with the trials");
    assert.match(report, /SIMULATED DATA/);
    assert.equal((report.match(/<svg/g) ?? []).length >= 3, true, "forest plot, heatmap, spec curve");
    assert.equal(card.methodologyStamp.blinded.blindingIndex, 0.04);
    assert.doesNotMatch(trials, /<img[^>]*onerror/i, "the hostile <img onerror> appears escaped too");
    assert.ok(trials.includes("&lt;img src=x onerror="), "the hostile <img> is shown, escaped");
    assert.ok(!trials.includes(HOSTILE_OUTPUT), "the hostile output never appears raw");
  });
});

describe("trials pages", () => {
  it("split into pages of TRIALS_PER_PAGE trials, each trial on exactly one page, every link resolving", async () => {
    const trialCount = TRIALS_PER_PAGE * 2 + 17;
    const { dir, trials } = await writeLargeStudy(trialCount);
    const store = await openStore(dir);
    let paths: Awaited<ReturnType<typeof writeReport>>;
    let outcome: Awaited<ReturnType<typeof analyzeDirectory>>;
    try {
      const run = (await store.getRun())!;
      const plan = normalizePlan({ bootstrap: { resamples: 100 }, specification_curve: { permutations: 0 } });
      outcome = await analyzeDirectory(dir, store, run, { plan });
      const card = buildScorecard(outcome.analysis, outcome.methodology);
      paths = await writeReport({ outcome, card }, { store, run }, join(dir, "report.html"));
    } finally {
      await store.close();
    }
    const expectedPages = Math.ceil(trialCount / TRIALS_PER_PAGE);
    assert.deepEqual(
      paths.pages,
      Array.from({ length: expectedPages }, (_, i) => `trials-${String(i + 1).padStart(4, "0")}.html`),
    );
    const anchorsOf = new Map<string, Set<string>>();
    // The trials in page order, each with the cell section it sits in, and the pages of each cell.
    const order: { trial: string; cell: string }[] = [];
    const pagesOfCell = new Map<string, string[]>();
    for (const file of paths.pages) {
      const html = readFileSync(join(dir, file), "utf8");
      const onPage = [...html.matchAll(/<section id="(cell-[^"]+)">|<article class="trial" id="t-([^"]+)"/g)];
      let cell = "";
      let count = 0;
      for (const [, section, trial] of onPage) {
        if (section) {
          cell = section;
          pagesOfCell.set(cell, [...(pagesOfCell.get(cell) ?? []), file]);
        } else {
          order.push({ trial, cell });
          count++;
        }
      }
      assert.ok(count <= TRIALS_PER_PAGE, `${file} holds ${count} trials`);
      anchorsOf.set(file, new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1])));
    }
    // Page order: configurations in the analysis's order, then model, benchmark, trial id.
    const varying = outcome.analysis.meta.configurationFacets;
    const configurationOf = (t: PlantedTrial) =>
      varying.map((f) => ({ scaffold: t.scaffold, perturbation: t.perturbation })[f as "scaffold"]).join(" · ");
    const rank = [...new Set(outcome.analysis.rates.map((c) => c.configuration))];
    const expected = [...trials].sort(
      (a, b) =>
        rank.indexOf(configurationOf(a)) - rank.indexOf(configurationOf(b)) ||
        a.model.localeCompare(b.model) ||
        (a.id < b.id ? -1 : 1),
    );
    assert.ok(
      expected.every((t) => rank.includes(configurationOf(t))),
      "expected expected.every((t) => rank.includes(configurationOf(t)))",
    );
    assert.deepEqual(
      order.map((o) => o.trial),
      expected.map((t) => t.id),
      "every trial once, in page order",
    );
    for (const { trial, cell } of order) {
      const t = trials.find((p) => p.id === trial)!;
      assert.equal(cell, cellId(t.model, "demo", configurationOf(t)), `trial ${trial} sits in its cell`);
    }
    // The report links each cell's first and last page (its own anchor there), never single trials.
    const report = readFileSync(paths.report, "utf8");
    assert.doesNotMatch(report, /#t-/);
    for (const [cell, files] of pagesOfCell) {
      assert.ok(report.includes(`href="${files[0]}#${cell}"`), `the report links ${cell} on ${files[0]}`);
      assert.ok(report.includes(`href="${files.at(-1)}#${cell}"`), `the report links ${cell} on ${files.at(-1)}`);
    }
    assert.ok(
      [...pagesOfCell.values()].some((files) => files.length > 1),
      "a cell spans two pages",
    );
    // Every link of the report into the pages lands on a page holding that anchor.
    const links = [...report.matchAll(/href="(trials-\d{4}\.html)#([^"]+)"/g)];
    for (const [, file, anchor] of links) assert.ok(anchorsOf.get(file)?.has(anchor), `${file}#${anchor} resolves`);
    const index = readFileSync(paths.trials, "utf8");
    for (const file of paths.pages) assert.ok(index.includes(`href="${file}"`), `the index links ${file}`);
  });
});

describeNeeding(needsChromium(), "HTML report in headless Chromium", () => {
  let context: import("playwright-core").BrowserContext;
  let built: Awaited<ReturnType<typeof buildReport>>;

  before(async () => {
    const { chromium } = await import("playwright-core");
    built = await buildReport();
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "parallax-chromium-")), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    // Offline: any request that is not a local file fails the test below.
    await context.route(/^(?!file:)/, (route) => route.abort());
  });

  after(async () => {
    await context?.close();
  });

  it("renders the charts with a size", async () => {
    const page = await context.newPage();
    await page.goto(pathToFileURL(built.paths.report).href);
    // Chart bodies are the SVGs with axes (legend swatches and ramps are small SVGs of their own).
    const sizes = await page.$$eval("figure svg", (svgs) =>
      svgs
        .filter((s) => s.querySelector('[aria-label$="axis tick"]'))
        .map((s) => {
          const box = s.getBoundingClientRect();
          return { width: box.width, height: box.height, marks: s.querySelectorAll("circle, rect, line, path").length };
        }),
    );
    assert.ok(sizes.length >= 3, `expected at least 3 charts, found ${sizes.length}`);
    for (const s of sizes) assert.ok(s.width > 300 && s.height > 80 && s.marks > 0, JSON.stringify(s));
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.screenshot({ path: join(tmpdir(), "parallax-report.png"), fullPage: false });
    await page.close();
  });

  it("follows a cell's trials link to its trials' exact messages, and runs no model output", async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(pathToFileURL(built.paths.report).href);
    // The report links the cell that holds the trial; the trial is in that cell's section.
    const pageHtml = readFileSync(join(built.paths.trials, "..", built.paths.pages[0]), "utf8");
    const cell = cellHolding(pageHtml, built.hostileTrialId);
    await page.locator(`#cells ~ table a[href="trials-0001.html#${cell}"]`).first().click();
    await page.waitForURL(new RegExp(`trials-0001\\.html#${cell}$`));
    const article = page.locator(`#${cell} #t-${built.hostileTrialId}`);
    assert.equal(await article.isVisible(), true);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text this checks
    const text = await article.innerText();
    assert.match(text, /Answer with the letter of the correct option\./, "the system message as sent");
    assert.match(text, /Question 1\? <b>\(A\) yes<\/b> \(B\) no/, "the user message, markup shown as text");
    assert.ok(
      text.includes('<script>window.__pwned = 1; document.title = "pwned"</script>'),
      "the output shown as text",
    );
    const state = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
      title: document.title,
      scripts: document.scripts.length,
      images: document.images.length,
    }));
    assert.deepEqual(
      { pwned: state.pwned, scripts: state.scripts, images: state.images },
      { pwned: null, scripts: 0, images: 0 },
    );
    assert.notEqual(state.title, "pwned");
    assert.deepEqual(errors, []);
    // The rate cells of the scorecard lead to their trials too.
    await page.goto(pathToFileURL(built.paths.report).href);
    const cellLink = page.locator('a[href^="trials-0001.html#cell-sim-a--demo--map_reduce"]').first();
    await cellLink.click();
    await page.waitForURL(/#cell-sim-a--demo--map_reduce/);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text this checks
    assert.match(await page.locator("#cell-sim-a--demo--map_reduce").innerText(), /12 trial\(s\)/);
    await page.close();
  });
});
