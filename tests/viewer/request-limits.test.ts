/**
 * Requests the viewer refuses at the request line, sent over raw sockets as a hostile client would:
 * an absolute-form target with a valid Host gets 400, a query string larger than Node's header
 * limit gets 414 (and oversized header fields 431), answered with a status line, not a TCP reset.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { type RunningViewer, startViewer } from "../../src/viewer/serve.js";
import { writeLargeStudy } from "./fixture.js";

/** Sends `head` (and nothing after it), then reads until the server closes; the status line's code, or the socket error. */
function rawRequest(port: number, head: string): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    socket.on("close", () => {
      const match = /^HTTP\/1\.[01] (\d{3}) /.exec(received);
      resolve(
        match ? { status: Number(match[1]) } : { error: `no status line in ${JSON.stringify(received.slice(0, 80))}` },
      );
    });
    socket.write(head);
  });
}

describe("viewer request-line limits", () => {
  let viewer: RunningViewer;
  let port: number;
  before(async () => {
    const { dir } = await writeLargeStudy(3);
    viewer = await startViewer(dir);
    port = Number(new URL(viewer.url).port);
  });
  after(() => viewer.close());

  const host = () => `Host: 127.0.0.1:${port}\r\n`;

  it("serves an origin-form request (the control)", async () => {
    assert.deepEqual(await rawRequest(port, `GET / HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`), { status: 200 });
  });

  it("answers an absolute-form request line with a valid Host with 400", async () => {
    const head = `GET http://evil.example/ HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`;
    assert.deepEqual(await rawRequest(port, head), { status: 400 });
    const own = `GET http://127.0.0.1:${port}/ HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`;
    assert.deepEqual(await rawRequest(port, own), { status: 400 }, "even naming the viewer itself");
  });

  for (const kib of [100, 1024]) {
    it(`answers a ${kib} KiB query string with 414, not a reset`, async () => {
      const head = `GET /?q=${"a".repeat(kib * 1024)} HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`;
      assert.deepEqual(await rawRequest(port, head), { status: 414 });
    });
  }

  it("answers 100 KiB of header fields with 431", async () => {
    const head = `GET / HTTP/1.1\r\n${host()}X-Filler: ${"b".repeat(100 * 1024)}\r\nConnection: close\r\n\r\n`;
    assert.deepEqual(await rawRequest(port, head), { status: 431 });
  });

  it("still serves after the refusals", async () => {
    assert.deepEqual(await rawRequest(port, `GET / HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`), { status: 200 });
  });
});
