/**
 * Sample ids are data: a hostile id (path traversal, NUL, a bidi override) imports unchanged, but
 * the report's trials pages and the viewer show its control and bidi characters escaped, and no
 * file is named after it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { visibleText } from "../../src/core/visible-text.js";
import { importLogs } from "../../src/interop/import.js";
import { openStore } from "../../src/run/store/open.js";
import { createViewerApp } from "../../src/viewer/app.js";
import { openViewerStudy } from "../../src/viewer/study.js";
import { runCli } from "../helpers/cli.js";
import { filesIn, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-hostile-"));
after(() => rmSync(work, { recursive: true, force: true }));

const HOSTILE = "../../x\u0000\u202e";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000\u202e]/;

test("visibleText escapes controls and bidi characters, keeps the rest", () => {
  assert.equal(visibleText(HOSTILE), "../../x\\u{0000}\\u{202E}");
  assert.equal(visibleText("a\tb\nc é 中"), "a\tb\nc é 中");
  assert.equal(visibleText("\u2066\u200f\u001b"), "\\u{2066}\\u{200F}\\u{001B}");
});

test("a hostile sample id is kept as data and shown escaped in the report and the viewer", {
  skip: interopSkip,
}, async () => {
  const log = JSON.parse(readFileSync(filesIn("inspect-json", ".json").find((f) => /arc_qwen/.test(f))!, "utf8"));
  log.samples[0].id = HOSTILE;
  const file = join(work, "hostile.json");
  writeFileSync(file, JSON.stringify(log));
  const out = join(work, "study");
  await importLogs({ format: "inspect", paths: [file], target: out });
  const store = await openStore(out);
  let trialId: string;
  try {
    const run = (await store.getRun())!;
    const trials = await store.listTrials(run.id);
    const hostile = trials.find((t) => t.itemId === HOSTILE);
    assert.ok(hostile, "the id is stored as the log wrote it");
    trialId = hostile.id;
  } finally {
    await store.close();
  }
  runCli(["analyze", out]);
  const report = runCli(["report", out]);
  assert.equal(report.status, 0, report.stderr);
  const pages = readdirSync(out).filter((f) => /^trials.*\.html$/.test(f));
  assert.ok(pages.length > 0, "the report wrote trials pages");
  const html = pages.map((p) => readFileSync(join(out, p), "utf8")).join("");
  assert.ok(html.includes("item ../../x\\u{0000}\\u{202E}"), "the id shown escaped");
  assert.doesNotMatch(html, HIDDEN);
  assert.ok(!readdirSync(work).includes("x"), "no file named after the id");
  const study = await openViewerStudy(out);
  try {
    const app = createViewerApp(study);
    for (const path of ["/", `/trials/${encodeURIComponent(trialId)}`]) {
      const page = await (await app.request(path)).text();
      assert.ok(page.includes("../../x\\u{0000}\\u{202E}"), `${path}: the id shown escaped`);
      assert.doesNotMatch(page, HIDDEN, `${path}: no raw NUL or bidi override`);
    }
  } finally {
    await study.store.close();
  }
});
