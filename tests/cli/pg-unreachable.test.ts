/**
 * A PostgreSQL store that cannot be reached (nothing listens) or refuses the connection (the
 * server hangs up at once): every command that opens it exits 2 with one line naming host, port,
 * database and the cause, and prints no stack and no source.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { after, before, describe, it } from "node:test";
import { deadPort } from "../helpers/mock-server.js";
import { startCli } from "../helpers/postgres-run.js";
import { writeDemoSpec } from "../helpers/study.js";

let refusing: Server;
let refusingPort = 0;
before(async () => {
  refusing = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  refusingPort = (refusing.address() as { port: number }).port;
});
after(() => refusing.close());

function commandsFor(url: string): string[][] {
  const { specPath, outDir } = writeDemoSpec({ items: 2 });
  return [
    ["status", url],
    ["worker", url],
    ["view", url, "--port", "0"],
    ["analyze", url],
    ["report", url, "--out", `${outDir}.html`],
    ["export", url, "--format", "jsonl"],
    ["run", specPath, "--out", outDir, "--store", url],
  ];
}

async function expectCleanRefusal(url: string, port: string, cause: RegExp): Promise<void> {
  for (const args of commandsFor(url)) {
    const result = await startCli(args, process.env).done;
    const what = `parallax ${args[0]}: ${result.stderr}`;
    assert.equal(result.status, 2, what);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 1, `one line: ${what}`);
    assert.match(lines[0], new RegExp(`host 127\\.0\\.0\\.1, port ${port}, database studies\\b`), what);
    assert.match(lines[0], cause, what);
    assert.doesNotMatch(result.stderr, /\bat .*:\d+:\d+|\^/, `no stack or source: ${what}`);
    assert.doesNotMatch(result.stderr, /secret/, `no password: ${what}`);
  }
}

describe("an unavailable PostgreSQL store", () => {
  it("nothing listening: exit 2, one line with host, port, database and cause", async () => {
    const port = new URL(await deadPort()).port;
    await expectCleanRefusal(`postgres://user:secret@127.0.0.1:${port}/studies`, port, /ECONNREFUSED/);
  });

  it("a server that hangs up: exit 2, one line with host, port, database and cause", async () => {
    const port = String(refusingPort);
    await expectCleanRefusal(`postgres://user:secret@127.0.0.1:${port}/studies`, port, /terminated|closed|reset/i);
  });
});
