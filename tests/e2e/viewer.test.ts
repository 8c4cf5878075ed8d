/// <reference lib="dom" />
/**
 * `parallax view` in headless Chromium (playwright-core + Debian's /usr/bin/chromium; skipped
 * with a message when it is absent): navigation list -> trial -> back, keyset paging over a
 * store of 100k trials, filters, search, the blinded view, the diff of a perturbed item, the
 * side-by-side view, and that hostile model output stays text (no dialog, no script) under a
 * strict CSP. Every expectation is computed from the planted trials (fixture.ts).
 */
import assert from "node:assert/strict";
import http from "node:http";
import { join } from "node:path";
import { describe } from "node:test";
import Database from "better-sqlite3";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { openStore } from "../../src/run/store/open.js";
import { CONTENT_SECURITY_POLICY } from "../../src/viewer/security.js";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import { type PlantedTrial, RUN_ID, writeLargeStudy } from "../viewer/fixture.js";
import { after, before, CHROMIUM, describeNeeding, it, needsChromium } from "../helpers/prerequisites.js";

const PAGE_SIZE = 100;
const LARGE = 100_000;
const SMALL = 400;
const HOSTILE_EVERY = 50;

const byId = (a: PlantedTrial, b: PlantedTrial) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const firstIds = (trials: PlantedTrial[], from = 0) =>
  [...trials]
    .sort(byId)
    .slice(from, from + PAGE_SIZE)
    .map((t) => t.id);

async function listedIds(page: Page): Promise<string[]> {
  return page.$$eval("#trials a.trial-link", (links) => links.map((a) => a.textContent ?? ""));
}

describeNeeding(needsChromium(), "parallax view in headless Chromium", () => {
  let browser: Browser;
  let context: BrowserContext;
  let large: { viewer: RunningViewer; trials: PlantedTrial[] };
  let small: { viewer: RunningViewer; trials: PlantedTrial[]; dir: string };

  before(async () => {
    const [big, little] = await Promise.all([writeLargeStudy(LARGE), writeLargeStudy(SMALL, HOSTILE_EVERY)]);
    large = { viewer: await startViewer(big.dir), trials: big.trials };
    small = { viewer: await startViewer(little.dir), trials: little.trials, dir: little.dir };
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    context = await browser.newContext();
    // Nothing but the local viewers.
    await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => route.abort());
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    await large?.viewer.close();
    await small?.viewer.close();
  });

  it("navigates list -> trial -> back", async () => {
    const page = await context.newPage();
    await page.goto(small.viewer.url);
    const [first] = await listedIds(page);
    await page.click(`a.trial-link >> text=${first}`);
    await page.waitForURL(new RegExp(`/trials/${first}$`));
    assert.equal(await page.locator("h1").textContent(), `Trial ${first}`);
    await page.goBack();
    await page.waitForURL(small.viewer.url);
    assert.deepEqual((await listedIds(page))[0], first);
    await page.close();
  });

  it("pages through 100k trials by key, forwards and back, also under a filter", async () => {
    const page = await context.newPage();
    const response = await page.goto(large.viewer.url);
    assert.equal(response?.status(), 200);
    assert.deepEqual(await listedIds(page), firstIds(large.trials));
    await page.locator("nav.pager").first().locator("a[rel=next]").click();
    assert.deepEqual(await listedIds(page), firstIds(large.trials, PAGE_SIZE));
    await page.locator("nav.pager").first().locator("a[rel=next]").click();
    assert.deepEqual(await listedIds(page), firstIds(large.trials, 2 * PAGE_SIZE));
    await page.locator("nav.pager").first().locator("a[rel=prev]").click();
    assert.deepEqual(await listedIds(page), firstIds(large.trials, PAGE_SIZE));
    // A filter pages the same way over only its trials.
    const failedB = large.trials.filter((t) => t.model === "sim-b" && t.status === "finished" && t.score === 0);
    await page.goto(`${large.viewer.url}?model=sim-b&outcome=fail`);
    assert.deepEqual(await listedIds(page), firstIds(failedB));
    await page.locator("nav.pager").first().locator("a[rel=next]").click();
    assert.deepEqual(await listedIds(page), firstIds(failedB, PAGE_SIZE));
    await page.close();
  });

  it("filters by model, facet, outcome, parse status, failure bucket and audit flag", async () => {
    const page = await context.newPage();
    await page.goto(small.viewer.url);
    const expectIds = async (wanted: PlantedTrial[]) =>
      assert.deepEqual(await listedIds(page), firstIds(wanted), `${wanted.length} trial(s) expected`);
    // Through the form, as a user would.
    await page.selectOption("select[name=bucket]", "rate_limit");
    await page.click("form.filters button[type=submit]");
    await expectIds(small.trials.filter((t) => t.failureBucket === "rate_limit"));
    await page.goto(`${small.viewer.url}?audit=options_reached&f.scaffold=map_reduce`);
    await expectIds(small.trials.filter((t) => t.optionsLost));
    await page.goto(`${small.viewer.url}?parse=failed&f.perturbation=case_change`);
    await expectIds(small.trials.filter((t) => t.parseStatus === "failed" && t.perturbation === "case_change"));
    await page.goto(`${small.viewer.url}?model=sim-a&outcome=pass&f.scaffold=direct`);
    await expectIds(small.trials.filter((t) => t.model === "sim-a" && t.score === 1 && t.scaffold === "direct"));
    await page.goto(`${small.viewer.url}?outcome=errored`);
    await expectIds(small.trials.filter((t) => t.status === "errored"));
    // An unknown value is refused with a message naming the field and the known values.
    const bad = await page.goto(`${small.viewer.url}?f.scaffold=nope`);
    assert.equal(bad?.status(), 400);
    assert.match(
      (await page.locator("#error").textContent()) ?? "",
      /unknown facet scaffold "nope"; expected one of: direct, map_reduce/,
    );
    await page.close();
  });

  it("searches prompts and responses with the full-text index", async () => {
    const page = await context.newPage();
    const target = small.trials[123];
    await page.goto(small.viewer.url);
    await page.fill("input[name=q]", `marker${target.index}`);
    await page.click("form.filters button[type=submit]");
    assert.deepEqual(await listedIds(page), [target.id], "a word of one response finds that trial only");
    // A word of the prompts: every trial whose question was upper-cased (perturbed) has CLEAR.
    await page.goto(`${small.viewer.url}?q=${encodeURIComponent("CLEAR DAY")}&model=sim-b`);
    // FTS matching folds case: both the perturbed and the plain questions contain the words.
    assert.deepEqual(await listedIds(page), firstIds(small.trials.filter((t) => t.model === "sim-b")));
    await page.goto(`${small.viewer.url}?q=pwned`);
    assert.deepEqual(await listedIds(page), firstIds(small.trials.filter((t) => t.hostile)));
    await page.goto(`${small.viewer.url}?q=${encodeURIComponent('" OR NEAR(')}nothing-like-this`);
    assert.equal(await page.locator("#empty").count(), 1, "query syntax in the search stays literal");
    await page.close();
  });

  it("keeps hostile model output as text: no dialog, no script, CSP on every response", async () => {
    const page = await context.newPage();
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    page.on("pageerror", (e) => errors.push(e.message));
    const hostile = small.trials.find((t) => t.hostile && t.status === "finished")!;
    for (const url of [`${small.viewer.url}?q=pwned`, `${small.viewer.url}trials/${hostile.id}`]) {
      const response = await page.goto(url);
      assert.equal(response?.headers()["content-security-policy"], CONTENT_SECURITY_POLICY);
      assert.equal(response?.headers()["x-content-type-options"], "nosniff");
      const state = await page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
        scripts: document.scripts.length,
        images: document.images.length,
        inlineHandlers: document.querySelectorAll("[onerror], [onload], [onclick]").length,
      }));
      assert.deepEqual(state, { pwned: null, scripts: 0, images: 0, inlineHandlers: 0 }, url);
    }
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what this checks
    const shown = await page.locator("pre.response").first().innerText();
    assert.ok(shown.includes('<script>window.__pwned = 1; alert("pwned")</script>'), "shown as text");
    assert.ok(
      shown.includes('<img src=x onerror="window.__pwned = 2; alert(2)">'),
      "expected shown.includes('<img src=x onerror=\"window.__pwned = 2; alert(2)\">')",
    );
    assert.deepEqual(dialogs, []);
    assert.deepEqual(errors, []);
    const css = await page.goto(`${small.viewer.url}static/viewer.css`);
    assert.equal(css?.headers()["content-security-policy"], CONTENT_SECURITY_POLICY);
    await page.close();
  });

  it("shows a perturbed trial's diff against the unperturbed item, and two conditions side by side", async () => {
    const page = await context.newPage();
    const perturbed = small.trials.find((t) => t.perturbation === "case_change" && t.status === "finished")!;
    const plain = small.trials.find(
      (t) =>
        t.item === perturbed.item &&
        t.model === perturbed.model &&
        t.scaffold === perturbed.scaffold &&
        t.perturbation === "none",
    )!;
    await page.goto(`${small.viewer.url}trials/${perturbed.id}`);
    assert.equal(await page.locator("pre.diff ins").first().textContent(), perturbed.question.split(":")[0]);
    assert.equal(await page.locator("pre.diff del").first().textContent(), plain.question.split(":")[0]);
    assert.match(
      (await page.locator("pre.diff").locator("xpath=preceding-sibling::h3[1]").textContent()) ?? "",
      new RegExp(plain.id),
    );
    await page.click(`table.siblings tr:has(a[href="/trials/${plain.id}"]) a.compare`);
    await page.waitForURL(/\/compare\?/);
    const columns = page.locator(".columns > .side");
    assert.equal(await columns.count(), 2);
    assert.match(
      (await columns.nth(0).locator("pre.task").textContent()) ?? "",
      new RegExp(perturbed.question.slice(0, 20)),
    );
    assert.match(
      (await columns.nth(1).locator("pre.task").textContent()) ?? "",
      new RegExp(plain.question.slice(0, 20)),
    );
    await page.close();
  });

  it("hides judge verdicts while the study is blinded, and shows them after unblinding", async () => {
    const page = await context.newPage();
    const judged = small.trials.find((t) => t.status === "finished" && !t.hostile)!;
    const secret = "VERDICT-LABEL-unsafe-7731";
    addJudgeCall(small.dir, judged.id, secret);
    const store = await openStore(small.dir);
    try {
      await store.sealBlindingRound(RUN_ID, {
        mapping: "sealed",
        sealedSha256: "0".repeat(64),
        sealedAt: "2026-01-02T00:00:00.000Z",
        entries: 1,
      });
      await store.saveVerdicts(RUN_ID, [verdict(secret)]);
      await page.goto(`${small.viewer.url}trials/${judged.id}`);
      const blindedText = (await page.locator("main").textContent()) ?? "";
      assert.equal(await page.locator("#verdicts-hidden").count(), 1);
      assert.ok(!blindedText.includes(secret), "neither the judge's reply nor its note nor a verdict shows");
      assert.match(blindedText, /Judge call hidden until the study is unblinded/);
      await store.unblindRound(RUN_ID, "2026-01-03T00:00:00.000Z", new Map([["uuid-1", judged.id]]));
      await page.goto(`${small.viewer.url}trials/${judged.id}`);
      assert.match((await page.locator("#verdicts").textContent()) ?? "", new RegExp(secret));
      assert.match((await page.locator("main").textContent()) ?? "", /the judge replied VERDICT-LABEL/);
    } finally {
      await store.close();
    }
    await page.close();
  });
});

describe("viewer requests", () => {
  it("is read-only and refuses a foreign Host header", async () => {
    const { dir } = await writeLargeStudy(10);
    const viewer = await startViewer(dir);
    try {
      assert.equal((await fetch(viewer.url, { method: "POST" })).status, 405);
      const port = new URL(viewer.url).port;
      // fetch() sets Host itself; node:http sends the one a rebound DNS name would carry.
      assert.equal(await statusWithHost(viewer.url, `attacker.example:${port}`), 421);
      assert.equal(await statusWithHost(viewer.url, `localhost:${port}`), 200);
      assert.equal((await fetch(`${viewer.url}trials/no-such-trial`)).status, 404);
      assert.equal((await fetch(viewer.url)).status, 200);
      // The store is open read-only: a write through its connection fails.
      await assert.rejects(
        viewer.study.store.saveScores([
          {
            trialId: "x",
            scorer: "s",
            version: "1",
            parsedAnswer: null,
            parseStatus: "ok",
            score: 1,
            details: null,
            createdAt: "now",
          },
        ]),
        /readonly|read-only/,
      );
    } finally {
      await viewer.close();
    }
  });
});

function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
  });
}

function addJudgeCall(dir: string, trialId: string, label: string): void {
  const db = new Database(join(dir, "parallax.db"));
  try {
    db.prepare(`insert into calls (trial_id, execution, seq, role, messages, params_used, dropped_params, response_text,
      input_tokens, output_tokens, cost_usd, latency_ms, cached, started_at, note)
      values (?, 1, 2, 'judge', ?, '{}', '[]', ?, 1, 1, 0, 1, 0, '2026-01-02T00:00:00.000Z', ?)`).run(
      trialId,
      JSON.stringify([{ role: "user", content: `Judge this response. ${label}?` }]),
      `the judge replied ${label}`,
      JSON.stringify({ judge: { uuid: "uuid-1", judge: "j", purpose: "verdict", ok: true, label } }),
    );
  } finally {
    db.close();
  }
}

function verdict(label: string) {
  return {
    uuid: "uuid-1",
    benchmark: "demo",
    rubric: "r",
    judge: "j",
    role: "primary" as const,
    ok: true,
    label,
    confidence: 0.9,
    justification: "because",
    outcome: 0,
    error: null,
  };
}
