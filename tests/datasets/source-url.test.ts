import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, mkdtempSync, rmSync, existsSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { after, before, describe, it } from "node:test";
import { InputError } from "../../src/core/errors.js";
import { datasetsDir, fixtures, load, sharedSkip } from "./helpers.js";

/** Serves files under the given roots (/fixtures/..., /shared/...) on 127.0.0.1 and counts requests per path. */
function fileServer(
  roots: Record<string, string>,
): Promise<{ server: Server; url: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const [, root, ...rest] = path.split("/");
    const file = roots[root] ? normalize(join(roots[root], ...rest)) : "";
    if (!file.startsWith(roots[root] ?? "\0") || !existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, { "content-length": body.length }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits }),
    ),
  );
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("URL sources with a local download cache", () => {
  let srv: Awaited<ReturnType<typeof fileServer>>;
  let cacheDir: string;
  before(async () => {
    srv = await fileServer({ fixtures, shared: datasetsDir });
    cacheDir = mkdtempSync(join(tmpdir(), "parallax-cache-"));
  });
  after(async () => {
    await new Promise((resolve) => srv.server.close(resolve));
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const viaUrl = (loader: string, url: string, options?: Record<string, unknown>) =>
    load(loader, url, options, { baseDir: tmpdir(), cacheDir });

  it("downloads a file once, then reuses the verified cached copy", async () => {
    const url = `${srv.url}/fixtures/or-bench/or-bench-hard-1k.csv`;
    const first = await viaUrl("or_bench", url, { sha256: sha(join(fixtures, "or-bench/or-bench-hard-1k.csv")) });
    assert.equal(first.items.length, 3);
    assert.deepEqual(first.sources["hard-1k-1"], { file: url, row: 1 });
    const second = await viaUrl("or_bench", url);
    assert.deepEqual(second.items, first.items);
    assert.equal(srv.hits.get("/fixtures/or-bench/or-bench-hard-1k.csv"), 1);
  });

  it("fetches again when the cached copy no longer matches its recorded digest", async () => {
    const url = `${srv.url}/fixtures/or-bench/or-bench-toxic.csv`;
    await viaUrl("or_bench", url);
    const dir = join(cacheDir, "datasets");
    const cached = readdirSync(dir, { recursive: true, encoding: "utf8" }).find((f) =>
      f.endsWith("or-bench-toxic.csv"),
    )!;
    writeFileSync(join(dir, cached), "prompt,category\ntampered,x\n");
    const again = await viaUrl("or_bench", url);
    assert.equal(again.items.length, 2);
    assert.equal(srv.hits.get("/fixtures/or-bench/or-bench-toxic.csv"), 2);
  });

  it("rejects a download whose SHA-256 differs from options.sha256, and an HTTP error, naming the URL", async () => {
    const url = `${srv.url}/fixtures/sycophancy/sycophancy_on_nlp_survey.jsonl`;
    await assert.rejects(viaUrl("anthropic_sycophancy", url, { sha256: "0".repeat(64) }), (e: unknown) => {
      assert.ok(e instanceof InputError, "expected e instanceof InputError");
      assert.match(e.message, /sycophancy_on_nlp_survey\.jsonl: SHA-256 [0-9a-f]{64} does not match/);
      return true;
    });
    await assert.rejects(
      viaUrl("xstest", `${srv.url}/fixtures/missing.csv`),
      /download of http:\/\/127\.0\.0\.1:\d+\/fixtures\/missing\.csv failed: HTTP 404/,
    );
  });

  it("a directory URL needs options.files and then loads each named file", async () => {
    const base = `${srv.url}/fixtures/sycophancy/`;
    await assert.rejects(
      viaUrl("anthropic_sycophancy", base),
      /a directory URL cannot be listed; name the files in options\.files/,
    );
    const files = ["sycophancy_on_nlp_survey.jsonl", "sycophancy_on_philpapers2020.jsonl"];
    const syc = await viaUrl("anthropic_sycophancy", base, {
      files,
      sha256: Object.fromEntries(files.map((f) => [f, sha(join(fixtures, "sycophancy", f))])),
    });
    assert.equal(syc.items.length, 4);
    assert.deepEqual(syc.sources["philpapers2020-2"], { file: `${base}sycophancy_on_philpapers2020.jsonl`, row: 2 });
  });

  it("serves a real published file through the same path", { skip: sharedSkip }, async () => {
    const xs = await viaUrl("xstest", `${srv.url}/shared/xstest/xstest_prompts.csv`);
    assert.equal(xs.items.length, 450);
  });
});
