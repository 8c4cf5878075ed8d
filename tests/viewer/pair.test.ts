/**
 * A paired case of two studies in the viewer, over real HTTP: two simulated studies are run (A a
 * strong model on 40 items, B a weaker successor under the same id on the first 30), `compare A B`
 * lists the flipped items with their side-by-side paths, and the viewer started on A with B
 * (`startViewer(A, {with: B})`, as `parallax view A --with B`) serves each path: both trials'
 * transcripts (read back from each store) and outcomes, each column headed by its study. A trial
 * id not in its study gets 404, and so does /pair on a viewer without a second study.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FlippedItem } from "../../src/analysis/across-studies/compare.js";
import { ParallaxError } from "../../src/core/errors.js";
import { esc } from "../../src/report/html.js";
import { openStore } from "../../src/run/store/open.js";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import { runCli } from "../helpers/cli.js";
import { demoSpecYaml, writeDemoSpec } from "../helpers/study.js";

/** A simulated study named `name` of model id sim-a at `ability` on the first `items` demo items. */
function study(name: string, ability: string, items: number): string {
  const { specPath, outDir } = writeDemoSpec();
  const model = `  - id: sim-a\n    provider: sim\n    model: ${ability}\n    params: { temperature: 0 }`;
  const yaml = demoSpecYaml({ items, facets: "    format: [mc]", models: model });
  writeFileSync(specPath, yaml.replace("study: demo-study", `study: ${name}`));
  const run = runCli(["run", specPath, "--out", outDir]);
  assert.equal(run.status, 0, run.stderr);
  return outDir;
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

/** Each trial's final answer and its sub-calls' responses, read from the study's own store. */
async function transcripts(dir: string, ids: readonly string[]): Promise<Map<string, string[]>> {
  const store = await openStore(dir, { readOnly: true });
  try {
    const run = (await store.getRun())!;
    const out = new Map<string, string[]>();
    for (const id of ids) {
      const calls = await store.listCalls(run.id, id);
      out.set(
        id,
        calls.flatMap((c) => (c.responseText ? [c.responseText] : [])),
      );
    }
    return out;
  } finally {
    await store.close();
  }
}

describe("viewer: a paired case of two studies (view A --with B)", () => {
  let a: string;
  let b: string;
  let flipped: FlippedItem[];
  let command: string;
  let viewer: RunningViewer;
  before(async () => {
    a = study("demo-a", "strong", 40);
    b = study("demo-b", "weak", 30);
    const result = runCli(["compare", a, b, "--json"]);
    assert.equal(result.status, 0, result.stderr);
    const comparison = JSON.parse(result.stdout) as { flipped: FlippedItem[]; viewer?: { command: string } };
    flipped = comparison.flipped;
    command = comparison.viewer?.command ?? "";
    viewer = await startViewer(a, { with: b });
  });
  after(() => viewer?.close());

  it("compare gives each flipped item its pair path and the command that serves it", () => {
    assert.ok(flipped.length >= 3, `the weaker successor flips items (${flipped.length})`);
    assert.equal(command, `parallax view ${a} --with ${b}`);
    for (const f of flipped) {
      assert.equal(f.view, `/pair?a=${f.trialsA[0]}&b=${f.trialsB[0]}`, `${f.item}: the first trial of each side`);
    }
  });

  it("serves every flipped item's path: both transcripts and outcomes, each column labelled with its study", async () => {
    const textsA = await transcripts(
      a,
      flipped.map((f) => f.trialsA[0]),
    );
    const textsB = await transcripts(
      b,
      flipped.map((f) => f.trialsB[0]),
    );
    const runA = viewer.study.run.id;
    const runB = viewer.pairWith!.run.id;
    for (const f of flipped) {
      const page = await get(new URL(f.view!, viewer.url).href);
      assert.equal(page.status, 200, `${f.view}: ${page.body.slice(0, 200)}`);
      const [, columnA, columnB] = page.body.split('<div class="side">');
      assert.ok(columnA && columnB, `${f.item}: two columns`);
      assert.ok(columnA.includes(`A: demo-a (run ${esc(runA)})`), `${f.item}: column A names study A`);
      assert.ok(columnB.includes(`B: demo-b (run ${esc(runB)})`), `${f.item}: column B names study B`);
      const outcome = (rate: number) => (rate === 1 ? "pass (1)" : "fail (0)");
      assert.ok(columnA.includes(outcome(f.rateA)), `${f.item}: A's outcome ${outcome(f.rateA)}`);
      assert.ok(columnB.includes(outcome(f.rateB)), `${f.item}: B's outcome ${outcome(f.rateB)}`);
      const responsesA = textsA.get(f.trialsA[0])!;
      const responsesB = textsB.get(f.trialsB[0])!;
      assert.ok(responsesA.length > 0 && responsesB.length > 0, `${f.item}: both trials have responses`);
      for (const text of responsesA) assert.ok(columnA.includes(esc(text)), `${f.item}: A's transcript in column A`);
      for (const text of responsesB) assert.ok(columnB.includes(esc(text)), `${f.item}: B's transcript in column B`);
    }
  });

  it("answers 404 for a trial id not in its study, and on a viewer without a second study", async () => {
    const [f] = flipped;
    const onlyInA = await get(new URL(`/pair?a=${f.trialsA[0]}&b=${f.trialsA[0]}`, viewer.url).href);
    // Trial ids are deterministic, so A's trial of a shared item is B's id too; an item B lacks is not.
    const storeA = await openStore(a, { readOnly: true });
    let lacking: string;
    try {
      const run = (await storeA.getRun())!;
      const { trials } = await storeA.browseTrials(run.id, { items: ["q035"] }, { limit: 1 });
      lacking = trials[0].id;
    } finally {
      await storeA.close();
    }
    assert.equal(onlyInA.status, 200, "an item both studies ran has the same trial id in both");
    const missingB = await get(new URL(`/pair?a=${f.trialsA[0]}&b=${lacking}`, viewer.url).href);
    assert.equal(missingB.status, 404, "B has no trial of item q035");
    assert.ok(missingB.body.includes(esc(`no trial '${lacking}' in B`)), missingB.body);
    const missingA = await get(new URL(`/pair?a=nope&b=${f.trialsB[0]}`, viewer.url).href);
    assert.equal(missingA.status, 404, "no trial 'nope' in A");
    assert.equal((await get(new URL("/pair", viewer.url).href)).status, 404, "no ids at all");
    const single = await startViewer(a);
    try {
      const page = await get(new URL(f.view!, single.url).href);
      assert.equal(page.status, 404, "a viewer of one study has no pair page");
      assert.match(page.body, /--with B/);
    } finally {
      await single.close();
    }
  });

  it("refuses a second study that is not one, naming --with, with exit code 2", async () => {
    const notAStudy = mkdtempSync(join(tmpdir(), "parallax-not-a-study-"));
    try {
      await assert.rejects(
        startViewer(a, { with: notAStudy }),
        (error: unknown) =>
          error instanceof ParallaxError && error.exitCode === 2 && error.message.startsWith(`--with: ${notAStudy}`),
        "the message names --with and the path",
      );
    } finally {
      rmSync(notAStudy, { recursive: true, force: true });
    }
  });

  it("keeps the Host check and read-only rule on the pair page", async () => {
    const [f] = flipped;
    const port = new URL(viewer.url).port;
    const foreign = await new Promise<number>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}${f.view}`, { headers: { host: `evil.com:${port}` } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        })
        .on("error", reject);
    });
    assert.equal(foreign, 421, "a foreign Host is refused");
    const post = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${viewer.url.replace(/\/$/, "")}${f.view}`, { method: "POST" }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on("error", reject);
      request.end();
    });
    assert.equal(post, 405, "the viewer is read-only");
  });

  it("prints the paths in the overview and the Markdown card", () => {
    const plain = runCli(["compare", a, b]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.ok(plain.stdout.includes(`Side by side: run \`${command}\``), plain.stdout);
    for (const f of flipped.slice(0, 10))
      assert.ok(plain.stdout.includes(`  ${f.view}  `), `${f.item} in the overview`);
    for (const line of plain.stdout.split("\n")) assert.ok(line.length <= 120, `too wide: ${line}`);
    const card = join(a, "..", "card.md");
    const withOut = runCli(["compare", a, b, "--out", card]);
    assert.equal(withOut.status, 0, withOut.stderr);
    const text = readFileSync(card, "utf8");
    assert.match(text, /\| A trials \| B trials \| side by side \|/);
    for (const f of flipped) assert.ok(text.includes(`| ${f.view} |`), `${f.item} in the card`);
  });
});
