/**
 * Zipped Inspect logs are read entry by entry within inflated-size caps: an entry that inflates
 * past the per-entry cap, or entries past the total cap, are refused by name with exit 2 and
 * nothing imported; an entry the importer never reads is never inflated, however large.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { zipSync } from "fflate";
import { ZipReader } from "../../src/interop/zip.js";
import { runCli } from "../helpers/cli.js";

const MIB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), "parallax-zip-bomb-"));
after(() => rmSync(work, { recursive: true, force: true }));

const text = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const header = text({ status: "success", eval: { task: "bomb_task", model: "openai/gpt-4o-mini" } });
function sample(id: number) {
  return text({
    id,
    epoch: 1,
    input: `question ${id}`,
    target: "A",
    output: { completion: "ANSWER: A" },
    scores: { choice: { value: "C", answer: "A" } },
  });
}
/** A valid sample of about `mib` MiB (a long input of one letter repeated): it deflates about a thousandfold. */
function largeSample(id: number, mib: number): Uint8Array {
  return text({ id, epoch: 1, input: "a".repeat(mib * MIB), target: "A", output: { completion: "ANSWER: A" } });
}

function writeEval(name: string, entries: Record<string, Uint8Array>): string {
  const path = join(work, name);
  const zipped = zipSync(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, [v, { level: 6 }]])));
  writeFileSync(path, zipped);
  return path;
}

function importEval(path: string, ...options: string[]) {
  const out = join(work, `out-${Math.random().toString(36).slice(2)}`);
  return { out, result: runCli(["import", "inspect", path, "--out", out, ...options]) };
}

describe("zipped logs within inflated-size caps", () => {
  it("refuses an entry that inflates past the per-entry cap, naming it, and imports nothing", () => {
    const bomb = writeEval("entry-bomb.eval", {
      "header.json": header,
      "samples/1_epoch_1.json": sample(1),
      "samples/2_epoch_1.json": largeSample(2, 48),
    });
    const { out, result } = importEval(bomb, "--max-entry-mb", "16");
    assert.equal(result.status, 2, result.stderr);
    assert.match(
      result.stderr,
      /\(samples\/2_epoch_1\.json\): this entry inflates to more than 16 MiB, the cap per entry/,
    );
    assert.equal(existsSync(out), false, "nothing imported");
    // Within a larger cap the same log imports.
    const larger = importEval(bomb, "--max-entry-mb", "64");
    assert.equal(larger.result.status, 0, larger.result.stderr);
    assert.match(larger.result.stdout, /imported 2 trials/);
  });

  it("refuses entries that inflate past the total cap, naming the entry that crossed it", () => {
    const many = writeEval("total-bomb.eval", {
      "header.json": header,
      ...Object.fromEntries(
        Array.from({ length: 4 }, (_, i) => [`samples/${i + 1}_epoch_1.json`, largeSample(i + 1, 10)]),
      ),
    });
    const { result } = importEval(many, "--max-entry-mb", "16", "--max-inflated-mb", "25");
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /\(samples\/3_epoch_1\.json\): the zip's entries inflate to more than 25 MiB in all/);
  });

  it("never inflates an entry it does not read", () => {
    const log = writeEval("unread-bomb.eval", {
      "header.json": header,
      "samples/1_epoch_1.json": sample(1),
      "samples/2_epoch_1.json": sample(2),
      "_journal/huge.bin": new Uint8Array(64 * MIB).fill(0x20),
    });
    const { out, result } = importEval(log, "--max-entry-mb", "1", "--max-inflated-mb", "1");
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /imported 2 trials/);
    assert.equal(existsSync(out), true);
  });

  it("reads each entry's bytes as they were zipped", () => {
    const entries = { "header.json": header, "samples/1_epoch_1.json": sample(1), "empty.txt": new Uint8Array(0) };
    const zip = ZipReader.open(writeEval("plain.eval", entries));
    try {
      assert.deepEqual(zip.names().sort(), Object.keys(entries).sort());
      for (const [name, bytes] of Object.entries(entries)) assert.deepEqual(zip.read(name), bytes, name);
    } finally {
      zip.close();
    }
  });
});
