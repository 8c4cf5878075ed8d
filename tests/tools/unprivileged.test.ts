/**
 * The sandbox as a non-root user runs it: bwrap in an unprivileged user namespace, no per-trial
 * uid. As root (this machine, CI), the probe runs in a child process started as a non-root uid;
 * as a non-root user, the other tests already take this path and it runs as the user.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { runsAsRoot } from "../../src/tools/sandbox.js";
import { describeNeeding, it, needsBubblewrap } from "../helpers/prerequisites.js";

const PROBE = join(import.meta.dirname, "..", "fixtures", "tools", "unprivileged-probe.ts");

describeNeeding(needsBubblewrap(), "sandbox without root", () => {
  it("keeps its limits, its network isolation and its read-only system", () => {
    const uid = runsAsRoot() ? 2_100_000 + (process.pid % 100_000) : undefined;
    const maxProcesses = 9;
    const child = spawnSync(process.execPath, ["--import", "tsx", PROBE, String(maxProcesses)], {
      encoding: "utf8",
      cwd: join(import.meta.dirname, "..", ".."),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" },
      ...(uid === undefined ? {} : { uid, gid: uid }),
      timeout: 120_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const probe = JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "{}");
    if (uid !== undefined) assert.equal(probe.uid, uid);
    // bwrap's init and python count against the limit.
    assert.equal(probe.children, maxProcesses - 2);
    assert.equal(probe.network, "no dns");
    assert.match(probe.written, /^inside\n.*\/etc\/probe-unprivileged: Read-only file system/s);
    assert.ok(probe.writtenError, "expected probe.writtenError");
    assert.equal(probe.read, `inside\n${probe.uid}\n`);
  });
});
