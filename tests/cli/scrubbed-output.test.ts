/**
 * The terminal's secret scrub: every write to a stream the command prints on passes through the
 * store's scrubber, strings and UTF-8 buffers alike; binary output is passed on untouched.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { scrubTerminalOutput } from "../../src/cli/scrubbed-output.js";
import { clearSecrets, registerSecrets } from "../../src/core/secrets.js";

const KEY = "sk-terminal-secret-0a1b2c3d4e5f";

function capturedStream(): { stream: NodeJS.WriteStream; text: () => string; bytes: () => Buffer } {
  const pass = new PassThrough();
  const chunks: Buffer[] = [];
  pass.on("data", (chunk: Buffer) => chunks.push(chunk));
  return {
    stream: pass as unknown as NodeJS.WriteStream,
    text: () => Buffer.concat(chunks).toString("utf8"),
    bytes: () => Buffer.concat(chunks),
  };
}

test("a key written to the terminal, in any encoding, comes out as [redacted]", () => {
  const out = capturedStream();
  scrubTerminalOutput([out.stream]);
  registerSecrets([KEY]);
  try {
    const base64 = Buffer.from(`xy${KEY}`).toString("base64");
    out.stream.write(`progress: failed with ${KEY}\n`);
    out.stream.write(Buffer.from(`note: base64=${base64}\n`));
    out.stream.write(`hex=${Buffer.from(KEY).toString("hex")}\n`, "utf8");
    const text = out.text();
    assert.equal(text.includes(KEY), false, text);
    assert.equal(text.includes(base64.slice(4, 30)), false, text);
    assert.equal((text.match(/\[redacted\]/g) ?? []).length, 3, text);
    assert.match(text, /^progress: failed with \[redacted\]\n/);
    // Bytes that are not UTF-8 text (a binary export on standard output) are passed on as they are.
    const binary = Buffer.from([0xff, 0xfe, 0x00, ...Buffer.from(KEY)]);
    out.stream.write(binary);
    assert.deepEqual(out.bytes().subarray(-binary.length), binary);
  } finally {
    clearSecrets();
  }
});

test("without registered secrets the writes pass unchanged", () => {
  const out = capturedStream();
  scrubTerminalOutput([out.stream]);
  out.stream.write(`plain ${KEY}\n`);
  assert.equal(out.text(), `plain ${KEY}\n`);
});
