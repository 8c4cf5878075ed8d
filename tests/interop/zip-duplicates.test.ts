/** A zip with two entries of one name is refused for that, not as a truncated file. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { strToU8, zipSync } from "fflate";
import { importLogs } from "../../src/interop/import.js";

const work = mkdtempSync(join(tmpdir(), "parallax-zip-dup-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("duplicate entry names: exit 2 naming the entry, without 'is the file truncated?'", async () => {
  const header = JSON.stringify({ eval: { task: "t", model: "m" } });
  const zip = Buffer.from(
    zipSync(
      {
        "header.json": strToU8(header),
        "samples/1_epoch_1.json": strToU8("{}"),
        "samples/2_epoch_1.json": strToU8("{}"),
      },
      { level: 0 },
    ),
  );
  // Rename the second sample to the first everywhere (same length): two entries of one name.
  const from = Buffer.from("samples/2_epoch_1.json");
  const to = Buffer.from("samples/1_epoch_1.json");
  for (let at = zip.indexOf(from); at >= 0; at = zip.indexOf(from, at + 1)) to.copy(zip, at);
  const file = join(work, "dup.eval");
  writeFileSync(file, zip);
  const error = await importLogs({ format: "inspect", paths: [file], target: join(work, "out") }).catch((e) => e);
  assert.ok(error instanceof Error, "the duplicate entry is refused with an error");
  assert.match(error.message, /dup\.eval \(samples\/1_epoch_1\.json\): the zip holds two entries of this name/);
  assert.doesNotMatch(error.message, /truncated/);
});
