import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import type { Toolbox } from "../../src/contracts/tool.js";
import { InputError } from "../../src/core/errors.js";
import { createToolbox } from "../../src/tools/toolbox.js";
import { webBackends } from "../../src/tools/web/registry.js";
import { assertNoSecret } from "../helpers/mock-secrets.js";
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
function call(box: Toolbox, name: string, args: Record<string, unknown>) {
  callNumber += 1;
  return box.invoke({ id: `web-${callNumber}`, name, arguments: JSON.stringify(args) });
}

describe("web tools, offline backend", () => {
  const folder = mkdtempSync(join(tmpdir(), "parallax-offline-web-"));
  after(() => rmSync(folder, { recursive: true, force: true }));
  // "lighthouse" occurs 3, 1 and 0 times: the ranking must follow the counts.
  const docs = {
    "coast/lighthouses.html": [
      "---",
      "title: Lighthouses of the north coast",
      "url: https://example.org/lighthouses",
      "---",
      "<html><head><style>p{color:red}</style></head><body><h1>Lighthouses</h1>",
      "<p>The lighthouse at Kettle Point is 31 metres tall.</p>",
      "<p>A second lighthouse stands on the breakwater; a third lighthouse was demolished.</p>",
      "<script>var hidden = 'lighthouse lighthouse lighthouse';</script></body></html>",
    ].join("\n"),
    "harbour.md": "# The harbour\n\nBoats moor below the old lighthouse.\nThe harbour master keeps a tide table.\n",
    "bakery.txt": "Bakery opening hours\nBread is baked at five in the morning.\n",
  };
  let box: Toolbox;
  before(async () => {
    for (const [name, text] of Object.entries(docs)) {
      mkdirSync(join(folder, name, ".."), { recursive: true });
      writeFileSync(join(folder, name), text);
    }
    const web = webBackends.get("offline").create({ folder }, { specDir: "/" });
    box = await toolbox({ tools: ["web_search", "web_fetch"], webBackend: web, limits: { outputBytes: 400 } });
  });

  it("ranks documents by the query's words and leaves out those without any", async () => {
    const result = await call(box, "web_search", { query: "lighthouse" });
    assert.equal(result.error, undefined, result.output);
    const urls = [...result.output.matchAll(/^\s+(\S+:\/\/\S+)$/gm)].map((m) => m[1]);
    assert.deepEqual(urls, ["https://example.org/lighthouses", "offline://harbour.md"]);
    assert.match(result.output, /^1\. Lighthouses of the north coast$/m);
    assert.match(result.output, /^2\. The harbour$/m);
    assert.match(result.output, /Kettle Point/);
    const none = await call(box, "web_search", { query: "volcano" });
    assert.equal(none.output, "No results for 'volcano'.");
    const limited = await call(box, "web_search", { query: "lighthouse bread", max_results: 1 });
    assert.equal(limited.output.split("\n").filter((line) => /^\d+\. /.test(line)).length, 1);
  });

  it("fetches a page by its URL as text, without scripts and styles", async () => {
    const page = await call(box, "web_fetch", { url: "https://example.org/lighthouses" });
    assert.equal(page.error, undefined, page.output);
    assert.match(page.output, /^Lighthouses of the north coast\n/);
    assert.match(page.output, /31 metres tall/);
    assert.doesNotMatch(page.output, /hidden|color:red|<p>/);
    const byPath = await call(box, "web_fetch", { url: "offline://bakery.txt" });
    assert.match(byPath.output, /baked at five/);
    const missing = await call(box, "web_fetch", { url: "https://example.org/nothing" });
    assert.match(missing.error ?? "", /web_fetch failed: no page at https:\/\/example\.org\/nothing/);
  });

  it("cuts a long page at the output cap", async () => {
    writeFileSync(join(folder, "long.txt"), `Long page\n${"word ".repeat(500)}`);
    const web = webBackends.get("offline").create({ folder }, { specDir: "/" });
    const longBox = await toolbox({ tools: ["web_fetch"], webBackend: web, limits: { outputBytes: 300 } });
    const page = await call(longBox, "web_fetch", { url: "offline://long.txt" });
    assert.equal(page.limitHit, "output");
    assert.equal(Buffer.byteLength(page.output.split("\n[output cut")[0]), 300);
  });

  it("answers that the web is unavailable without a backend, and refuses a missing folder", async () => {
    const bare = await toolbox({ tools: ["web_search"] });
    const result = await call(bare, "web_search", { query: "x" });
    assert.match(result.error ?? "", /no web backend/);
    assert.throws(
      () => webBackends.get("offline").create({ folder: join(folder, "absent") }, { specDir: "/" }),
      InputError,
    );
  });
});

describeNeeding(needsBubblewrap(), "web tools, Brave Search backend against a local mock", () => {
  const KEY = "brave-test-key-000000000000000001";
  const requests: { url: URL; headers: IncomingMessage["headers"] }[] = [];
  let server: Server;
  let base = "";
  before(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", base);
      requests.push({ url, headers: req.headers });
      if (url.pathname === "/res/v1/web/search") {
        if (req.headers["x-subscription-token"] !== KEY) {
          res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
          return;
        }
        const count = Number(url.searchParams.get("count"));
        const results = Array.from({ length: 10 }, (_, i) => ({
          title: `Result <strong>${i + 1}</strong> for ${url.searchParams.get("q")}`,
          url: `${base}/page/${i + 1}`,
          description: `About <strong>${url.searchParams.get("q")}</strong>, part ${i + 1}`,
        })).slice(0, count);
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ type: "search", web: { results } }));
      } else if (url.pathname.startsWith("/page/")) {
        res
          .writeHead(200, { "content-type": "text/html; charset=utf-8" })
          .end(
            `<html><head><title>Page ${url.pathname.slice(6)}</title></head><body><p>Body of page ${url.pathname.slice(6)}</p></body></html>`,
          );
      } else if (url.pathname === "/report.pdf") {
        res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.4");
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(() => server.close());

  const settings = (over: Record<string, unknown> = {}) =>
    webBackends.get("brave").settingsSchema.parse({
      endpoint: `${base}/res/v1/web/search`,
      api_key_env: "PARALLAX_TEST_BRAVE_KEY",
      allow_private_hosts: true,
      ...over,
    });

  it("searches with the key from the environment and fetches pages as text", async () => {
    const web = webBackends.get("brave").create(settings(), { specDir: "/", env: { PARALLAX_TEST_BRAVE_KEY: KEY } });
    const box = await toolbox({ tools: ["web_search", "web_fetch"], webBackend: web });
    const query = "tide tables";
    const found = await call(box, "web_search", { query, max_results: 3 });
    assert.equal(found.error, undefined, found.output);
    const searchRequest = requests.find((r) => r.url.pathname === "/res/v1/web/search");
    assert.equal(searchRequest?.url.searchParams.get("q"), query);
    assert.equal(searchRequest?.url.searchParams.get("count"), "3");
    assert.deepEqual(
      found.output.split("\n").filter((line) => /^\d+\. /.test(line)),
      [1, 2, 3].map((i) => `${i}. Result ${i} for ${query}`),
    );
    assert.match(found.output, /About tide tables, part 2/);
    const page = await call(box, "web_fetch", { url: `${base}/page/2` });
    assert.equal(page.output, "Page 2\n\nBody of page 2");
    const pdf = await call(box, "web_fetch", { url: `${base}/report.pdf` });
    assert.match(pdf.error ?? "", /application\/pdf/);
    const gone = await call(box, "web_fetch", { url: `${base}/missing` });
    assert.match(gone.error ?? "", /HTTP 404/);
    const notHttp = await call(box, "web_fetch", { url: "file:///etc/passwd" });
    assert.match(notHttp.error ?? "", /only http and https/);
    for (const result of [found, page, pdf, gone]) assertNoSecret(result, [KEY]);
  });

  it("web_browser searches through the API and opens the hits' pages over HTTP", async () => {
    const web = webBackends.get("brave").create(settings(), { specDir: "/", env: { PARALLAX_TEST_BRAVE_KEY: KEY } });
    const box = await toolbox({ tools: ["web_browser"], webBackend: web });
    const query = "harbour tides";
    const results = await call(box, "web_browser", { action: "search", query });
    assert.equal(results.error, undefined, results.output);
    assert.ok(results.output.includes(`Result 3 for ${query} [3]`), results.output);
    const page = await call(box, "web_browser", { action: "click", link: 3 });
    assert.deepEqual(page.output.split("\n").slice(0, 2), ["Page 3", `${base}/page/3`]);
    assert.ok(page.output.endsWith("Body of page 3"), page.output);
    const pdf = await call(box, "web_browser", { action: "go", url: `${base}/report.pdf` });
    assert.match(pdf.error ?? "", /application\/pdf/);
    for (const result of [results, page, pdf]) assertNoSecret(result, [KEY]);
  });

  it("reports a rejected key without showing it, and a missing key variable by name", async () => {
    const web = webBackends
      .get("brave")
      .create(settings(), { specDir: "/", env: { PARALLAX_TEST_BRAVE_KEY: `${KEY}-wrong` } });
    const box = await toolbox({ tools: ["web_search"], webBackend: web });
    const result = await call(box, "web_search", { query: "x" });
    assert.match(result.error ?? "", /HTTP 401/);
    assertNoSecret(result, [KEY]);
    assert.throws(
      () => webBackends.get("brave").create(settings(), { specDir: "/", env: {} }),
      /PARALLAX_TEST_BRAVE_KEY, which is not set/,
    );
  });

  it("refuses private and loopback addresses unless allowed", async () => {
    const web = webBackends
      .get("brave")
      .create(settings({ allow_private_hosts: false }), { specDir: "/", env: { PARALLAX_TEST_BRAVE_KEY: KEY } });
    const box = await toolbox({ tools: ["web_fetch"], webBackend: web });
    const before = requests.length;
    for (const url of [
      `${base}/page/1`,
      "http://localhost:9/",
      "http://[::1]/",
      "http://169.254.169.254/latest",
      "http://10.1.2.3/",
    ]) {
      const result = await call(box, "web_fetch", { url });
      assert.match(result.error ?? "", /private or local address/, url);
    }
    assert.equal(requests.length, before);
  });
});
