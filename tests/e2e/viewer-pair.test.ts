/// <reference lib="dom" />
/**
 * The two-study pair page (`parallax view A --with B`, `/pair?a=&b=`) in headless Chromium
 * (skipped with a message without /usr/bin/chromium): two planted studies with hostile model
 * output (tests/viewer/fixture.ts); the page shows both trials' responses as text in two columns
 * headed by their studies, runs no script, opens no dialog and carries the strict CSP.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { CONTENT_SECURITY_POLICY } from "../../src/viewer/security.js";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import { type PlantedTrial, RUN_ID, writeLargeStudy } from "../viewer/fixture.js";
import { after, before, CHROMIUM, describeNeeding, it, needsChromium } from "../helpers/prerequisites.js";

describeNeeding(needsChromium(), "the pair page of two studies in headless Chromium", () => {
  let browser: Browser;
  let viewer: RunningViewer;
  let trials: PlantedTrial[];

  before(async () => {
    const [a, b] = await Promise.all([writeLargeStudy(60, 10), writeLargeStudy(60, 10)]);
    trials = a.trials;
    viewer = await startViewer(a.dir, { with: b.dir });
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu"],
    });
  });

  after(async () => {
    await browser?.close();
    await viewer?.close();
  });

  it("shows both trials' hostile output as text, in two labelled columns, with no script run", async () => {
    const context = await browser.newContext();
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    const hostile = trials.find((t) => t.hostile && t.status === "finished")!;
    const plain = trials.find((t) => !t.hostile && t.status === "finished" && t.item === hostile.item)!;
    const response = await page.goto(`${viewer.url}pair?a=${hostile.id}&b=${plain.id}`);
    assert.equal(response?.status(), 200, "the pair page is served");
    assert.equal(response?.headers()["content-security-policy"], CONTENT_SECURITY_POLICY);
    const state = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
      scripts: document.scripts.length,
      images: document.images.length,
      columns: Array.from(document.querySelectorAll(".columns > .side h2.study")).map((h) => h.textContent),
    }));
    assert.deepEqual(state, {
      pwned: null,
      scripts: 0,
      images: 0,
      columns: [`A: viewer-fixture (run ${RUN_ID})`, `B: viewer-fixture (run ${RUN_ID})`],
    });
    const sides = page.locator(".columns > .side");
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what this checks
    const shownA = await sides.nth(0).locator("pre.response").first().innerText();
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what this checks
    const shownB = await sides.nth(1).locator("pre.response").first().innerText();
    assert.ok(shownA.includes('<script>window.__pwned = 1; alert("pwned")</script>'), "A's output shown as text");
    assert.equal(shownB, plain.response, "B's response as stored");
    assert.deepEqual(dialogs, []);
    await context.close();
  });
});
