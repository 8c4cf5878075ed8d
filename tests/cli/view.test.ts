/**
 * The real `parallax view` command: it prints its URL, serves the study read-only until
 * SIGTERM, warns when --host exposes it, and refuses bad input with exit 2.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { writeLargeStudy } from "../viewer/fixture.js";

const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

function startView(args: string[]): { child: ChildProcess; url: Promise<string>; stderr: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", CLI, "view", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => {
    err += d;
  });
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const found = /at (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]);
    });
    child.once("exit", (code) => reject(new Error(`view exited ${code}: ${err}`)));
  });
  return { child, url, stderr: () => err };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("parallax view", () => {
  it("serves the study on 127.0.0.1 until SIGTERM, and warns when --host exposes it", async () => {
    const { dir, trials } = await writeLargeStudy(30);
    const local = startView([dir, "--no-open"]);
    const url = await local.url;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const list = await fetch(url);
    assert.equal(list.status, 200);
    assert.match(list.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    assert.ok(
      (await list.text()).includes(trials.map((t) => t.id).sort()[0]),
      "expected (await list.text()).includes(trials.map((t) => t.id).sort()[0])",
    );
    const done = exited(local.child);
    local.child.kill("SIGTERM");
    assert.equal(await done, 0);
    assert.equal(local.stderr(), "");

    const exposed = startView([dir, "--no-open", "--host", "0.0.0.0"]);
    const port = new URL(await exposed.url).port;
    assert.equal((await fetch(`http://127.0.0.1:${port}/`)).status, 200);
    assert.match(exposed.stderr(), /warning: --host 0\.0\.0\.0 exposes every prompt and response/);
    const stopped = exited(exposed.child);
    exposed.child.kill("SIGTERM");
    assert.equal(await stopped, 0);
  });

  it("refuses a bad port and a directory without a store, exit 2", () => {
    const badPort = runCli(["view", ".", "--port", "http"]);
    assert.equal(badPort.status, 2);
    assert.match(badPort.stderr, /--port: expected a port number 0-65535, found 'http'/);
    const empty = mkdtempSync(join(tmpdir(), "parallax-view-"));
    const noStore = runCli(["view", empty, "--no-open"]);
    assert.equal(noStore.status, 2);
    assert.match(noStore.stderr, /is not a study directory \(no parallax\.db\)/);
  });
});
