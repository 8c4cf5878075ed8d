/**
 * S1's stateful web_browser over the offline backend (a folder written here): search results as
 * a page of numbered links, click, scroll by views, back/forward, pages rendered in the trial's
 * sandbox (the rendered text lands in the work dir, where the code tools read it), and every
 * misuse an observation. Offline only.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Toolbox } from "../../src/contracts/tool.js";
import { createToolbox, toolSpec } from "../../src/tools/index.js";
import { tools } from "../../src/tools/registry.js";
import { VIEW_LINES } from "../../src/tools/web-browser.js";
import { createOfflineWeb } from "../../src/tools/web/offline.js";
import type { WebBackend } from "../../src/tools/web/types.js";
import { after, before, describeNeeding, it, needsBubblewrap } from "../helpers/prerequisites.js";

const boxes: Toolbox[] = [];
after(async () => {
  for (const box of boxes) await box.dispose();
});
async function toolbox(options: Parameters<typeof createToolbox>[0]): Promise<Toolbox> {
  const box = await createToolbox(options);
  boxes.push(box);
  return box;
}
let callNumber = 0;
function browse(box: Toolbox, args: Record<string, unknown>) {
  callNumber += 1;
  return box.invoke({ id: `browse-${callNumber}`, name: "web_browser", arguments: JSON.stringify(args) });
}

const LONG_LINES = 2 * VIEW_LINES + 15;

describeNeeding(needsBubblewrap(), "web_browser on the offline web", () => {
  const folder = mkdtempSync(join(tmpdir(), "parallax-browser-web-"));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const web = createOfflineWeb(folder);
  let box: Toolbox;
  before(async () => {
    writeFileSync(
      join(folder, "ferries.html"),
      [
        "---",
        "url: https://example.org/ferries",
        "---",
        "<html><head><title>Ferry timetable</title><script>document.write('ferry ferry')</script></head>",
        "<body><h1>Ferries</h1><p>The ferry to <a href='/islands/gull'>Gull Island</a> leaves at 7:40.</p>",
        "<ul><li>Monday &amp; Tuesday</li><li>See the <a href='fares.md'>fares</a></li></ul></body></html>",
      ].join("\n"),
    );
    writeFileSync(
      join(folder, "gull.md"),
      "---\nurl: https://example.org/islands/gull\n---\n# Gull Island\nThe ferry lands at the north pier. [Back](https://example.org/ferries)\n",
    );
    writeFileSync(
      join(folder, "fares.md"),
      "---\nurl: https://example.org/fares.md\n---\n# Fares\nA ferry ticket costs 4 crowns.\n",
    );
    const long = Array.from({ length: LONG_LINES }, (_, i) => `Ferry log line ${i + 1}`);
    writeFileSync(join(folder, "log.txt"), `${long.join("\n")}\n`);
    box = await toolbox({ tools: ["web_browser", "bash"], webBackend: web });
  });

  it("is registered, describes itself, and its schema names every action", () => {
    const spec = toolSpec(tools.get("web_browser"));
    const properties = spec.parameters.properties as Record<string, { enum?: string[] }>;
    assert.deepEqual(properties.action.enum, ["go", "search", "click", "scroll", "back", "forward"]);
    assert.deepEqual(spec.parameters.required, ["action"]);
    assert.equal(spec.parameters.additionalProperties, false);
  });

  it("search shows the backend's hits as numbered links, and click follows them", async () => {
    const query = "ferry island";
    const hits = await web.search(query, 10);
    assert.ok(hits.length >= 2, "expected hits.length >= 2");
    const results = await browse(box, { action: "search", query });
    assert.equal(results.error, undefined, results.output);
    for (const [i, hit] of hits.entries()) assert.ok(results.output.includes(`${hit.title} [${i + 1}]`), hit.title);

    const target = hits.findIndex((hit) => hit.url === "https://example.org/ferries");
    const page = await browse(box, { action: "click", link: target + 1 });
    assert.equal(page.error, undefined, page.output);
    const lines = page.output.split("\n");
    assert.equal(lines[0], "Ferry timetable");
    assert.equal(lines[1], "https://example.org/ferries");
    assert.ok(page.output.includes("The ferry to Gull Island [1] leaves at 7:40."), page.output);
    assert.ok(page.output.includes("- Monday & Tuesday"), 'expected page.output.includes("- Monday & Tuesday")');
    assert.ok(!page.output.includes("document.write"), "scripts are not shown");

    // A relative link resolves against the page's URL.
    const island = await browse(box, { action: "click", link: 1 });
    assert.equal(island.output.split("\n")[1], "https://example.org/islands/gull");
    assert.ok(
      island.output.includes("The ferry lands at the north pier. Back [1]"),
      'expected island.output.includes("The ferry lands at the north pier. Back [1]")',
    );
  });

  it("back and forward move through the history; a new page drops the forward history", async () => {
    await browse(box, { action: "go", url: "https://example.org/ferries" });
    await browse(box, { action: "click", link: 2 });
    const back = await browse(box, { action: "back" });
    assert.equal(back.output.split("\n")[1], "https://example.org/ferries");
    const forward = await browse(box, { action: "forward" });
    assert.equal(forward.output.split("\n")[1], "https://example.org/fares.md");
    await browse(box, { action: "back" });
    await browse(box, { action: "click", link: 1 });
    const none = await browse(box, { action: "forward" });
    assert.match(none.error ?? "", /no page to go forward to/);
  });

  it("scroll moves one view at a time and stops at the ends", async () => {
    const view = (output: string) => output.split("\n").slice(4);
    const first = await browse(box, { action: "go", url: "offline://log.txt" });
    assert.ok(first.output.includes(`(lines 1-${VIEW_LINES} of ${LONG_LINES}; scroll down for more)`), first.output);
    assert.deepEqual(
      view(first.output),
      Array.from({ length: VIEW_LINES }, (_, i) => `Ferry log line ${i + 1}`),
    );
    const second = await browse(box, { action: "scroll", direction: "down" });
    assert.equal(view(second.output)[0], `Ferry log line ${VIEW_LINES + 1}`);
    await browse(box, { action: "scroll" });
    const end = await browse(box, { action: "scroll" });
    assert.ok(end.output.includes(`(lines ${2 * VIEW_LINES + 1}-${LONG_LINES} of ${LONG_LINES})`), end.output);
    const up = await browse(box, { action: "scroll", direction: "up" });
    assert.equal(view(up.output)[0], `Ferry log line ${VIEW_LINES + 1}`);
  });

  it("pages are rendered in the trial's sandbox: the page in view is in the work dir for the code tools", async () => {
    await browse(box, { action: "go", url: "https://example.org/fares.md" });
    const onDisk = readFileSync(join(box.workDir, ".web_browser", "page.txt"), "utf8");
    assert.equal(onDisk, "# Fares\nA ferry ticket costs 4 crowns.\n");
    const read = await box.invoke({
      id: "read-page",
      name: "bash",
      arguments: JSON.stringify({ cmd: "grep -o '[0-9]* crowns' .web_browser/page.txt" }),
    });
    assert.equal(read.output.trim(), "4 crowns");
  });

  it("misuse is an observation, never a throw", async () => {
    const fresh = await toolbox({ tools: ["web_browser"], webBackend: web });
    assert.match((await browse(fresh, { action: "scroll" })).error ?? "", /no page is open/);
    assert.match((await browse(fresh, { action: "click", link: 1 })).error ?? "", /no page is open/);
    assert.match((await browse(fresh, { action: "go" })).error ?? "", /url: action 'go' needs url/);
    assert.match((await browse(fresh, { action: "search" })).error ?? "", /query: action 'search' needs query/);
    assert.match((await browse(fresh, { action: "go", url: "https://example.org/none" })).error ?? "", /no page at/);
    await browse(fresh, { action: "go", url: "https://example.org/fares.md" });
    assert.match((await browse(fresh, { action: "click", link: 3 })).error ?? "", /no link \[3\].*0 links/);
    const bare = await toolbox({ tools: ["web_browser"] });
    assert.match((await browse(bare, { action: "search", query: "x" })).error ?? "", /no web backend/);
  });

  it("a view is cut at the output cap", async () => {
    const small = await toolbox({ tools: ["web_browser"], webBackend: web, limits: { outputBytes: 200 } });
    const page = await browse(small, { action: "go", url: "offline://log.txt" });
    assert.equal(page.limitHit, "output");
    assert.ok(Buffer.byteLength(page.output) < 300, "expected Buffer.byteLength(page.output) < 300");
  });
});

describeNeeding(needsBubblewrap(), "web_browser on a backend without raw pages", () => {
  it("shows the backend's text (URLs in it become links)", async () => {
    const web: WebBackend = {
      name: "text-only",
      search: async () => [],
      fetch: async (url) => `Page at ${new URL(url).pathname}\nMore at https://example.net/more and nothing else.`,
    };
    const box = await toolbox({ tools: ["web_browser"], webBackend: web });
    const page = await browse(box, { action: "go", url: "https://example.net/start" });
    assert.ok(page.output.includes("More at https://example.net/more [1] and nothing else."), page.output);
    const next = await browse(box, { action: "click", link: 1 });
    assert.ok(next.output.includes("Page at /more"), next.output);
    const empty = await browse(box, { action: "search", query: "anything" });
    assert.ok(empty.output.includes("No results."), 'expected empty.output.includes("No results.")');
  });
});
