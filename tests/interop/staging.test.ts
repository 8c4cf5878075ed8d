/**
 * A killed import's staging folder is removed by the next import anywhere in the same parent
 * folder (not only one with the same --out); a live import's staging folder is left alone.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { importLogs } from "../../src/interop/import.js";
import { STAGING_PREFIX } from "../../src/interop/write.js";
import { filesIn, interopSkip } from "./shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-staging-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** The id of a process that has exited (as a SIGKILLed import's has). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.kill(process.pid, 'SIGKILL')"]);
  assert.equal(child.signal, "SIGKILL");
  return child.pid;
}

test("an import into another study directory of the same parent removes a killed import's staging folder", {
  skip: interopSkip,
}, async () => {
  const killed = join(work, `${STAGING_PREFIX}${deadPid()}.first-study`);
  mkdirSync(join(killed, "nested"), { recursive: true });
  writeFileSync(join(killed, "nested", "trials.sqlite"), Buffer.alloc(1024));
  // A staging folder of a running process (this one's parent: alive) must stay.
  const live = join(work, `${STAGING_PREFIX}${process.ppid}.busy-study`);
  mkdirSync(live);
  const log = filesIn("inspect-json", ".json").find((f) => /arc_qwen/.test(f))!;
  await importLogs({ format: "inspect", paths: [log], target: join(work, "other-study") });
  assert.ok(!existsSync(killed), "the killed import's staging folder is gone");
  assert.ok(existsSync(live), "a live import's staging folder stays");
  assert.deepEqual(
    readdirSync(work).filter((n) => n.startsWith(STAGING_PREFIX)),
    [`${STAGING_PREFIX}${process.ppid}.busy-study`],
  );
  assert.ok(existsSync(join(work, "other-study", "import.json")), "another study's finished import stays");
});
