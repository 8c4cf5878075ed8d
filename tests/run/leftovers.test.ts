/**
 * What a SIGKILLed process leaves behind is cleared by the next one: an import's
 * `.parallax-import-PID.NAME` staging directory, and an agent run's trial work directories.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { processAlive } from "../../src/core/stale.js";
import { STAGING_PREFIX } from "../../src/interop/write.js";
import { createToolbox, WORK_DIR_PREFIX } from "../../src/tools/toolbox.js";
import { runCli } from "../helpers/cli.js";
import { filesIn, interopSkip } from "../interop/shared-logs.js";

const work = mkdtempSync(join(tmpdir(), "parallax-leftovers-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** The id of a process that ran and was SIGKILLed, as a killed import or run would be. */
async function killedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  assert.equal(processAlive(child.pid!), false, "the killed process is gone");
  return child.pid!;
}

describe("leftovers of killed processes", () => {
  it("an import removes a killed import's staging directory, and keeps a live one's", {
    skip: interopSkip,
  }, async () => {
    const out = join(work, "study");
    const dead = join(work, `${STAGING_PREFIX}${await killedPid()}.study`);
    mkdirSync(dead);
    writeFileSync(join(dead, "parallax.db"), "half-written");
    // A staging directory of an import still running (a live process) must not be touched.
    const liveOwner = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    await new Promise((resolve) => liveOwner.once("spawn", resolve));
    const liveStaging = join(work, `${STAGING_PREFIX}${liveOwner.pid}.study`);
    mkdirSync(liveStaging);
    try {
      const result = runCli(["import", "inspect", filesIn("inspect", ".eval")[0], "--out", out]);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(existsSync(dead), false, "the killed import's staging directory is removed");
      assert.equal(existsSync(liveStaging), true, "a running import's staging directory is left alone");
    } finally {
      liveOwner.kill("SIGKILL");
    }
  });

  it("a toolbox removes the work dirs of a killed run, and keeps its own process's", async () => {
    const parent = mkdtempSync(join(work, "trials-"));
    const dead = join(parent, `${WORK_DIR_PREFIX}${await killedPid()}-abc123`);
    mkdirSync(dead);
    writeFileSync(join(dead, "answer.txt"), "from a killed trial");
    const box = await createToolbox({ parentDir: parent, tools: ["bash"] });
    try {
      assert.equal(existsSync(dead), false, "the killed run's work dir is removed");
      assert.ok(box.workDir.includes(`${WORK_DIR_PREFIX}${process.pid}-`), box.workDir);
      const second = await createToolbox({ parentDir: parent, tools: ["bash"] });
      assert.equal(existsSync(box.workDir), true, "a live process's work dir is kept");
      await second.dispose();
    } finally {
      await box.dispose();
    }
    assert.equal(existsSync(box.workDir), false, "dispose removes the work dir");
  });
});
