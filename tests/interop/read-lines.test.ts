/** JSONL logs are read as streams, line by line, with the line numbers every message names. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { forEachLine } from "../../src/interop/read.js";

const work = mkdtempSync(join(tmpdir(), "parallax-lines-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("each non-blank line with its 1-based number; CRLF and a missing final newline read as lines", async () => {
  const file = join(work, "rows.jsonl");
  writeFileSync(file, '{"a":1}\r\n\n  \n{"b":2}\n{"c":"é 中"}');
  const seen: [string, number][] = [];
  await forEachLine(file, (line, n) => seen.push([line, n]));
  assert.deepEqual(seen, [
    ['{"a":1}', 1],
    ['{"b":2}', 4],
    ['{"c":"é 中"}', 5],
  ]);
});

test("a line longer than a stream chunk (64 KiB) is read whole", async () => {
  const file = join(work, "long.jsonl");
  const long = JSON.stringify({ text: "x".repeat(300_000) });
  writeFileSync(file, `${long}\n${long}\n`);
  const lengths: number[] = [];
  await forEachLine(file, (line) => lengths.push(line.length));
  assert.deepEqual(lengths, [long.length, long.length]);
});

test("a missing file is an input error naming it", async () => {
  await assert.rejects(
    forEachLine(join(work, "gone.jsonl"), () => {}),
    /gone\.jsonl: no such file/,
  );
});
