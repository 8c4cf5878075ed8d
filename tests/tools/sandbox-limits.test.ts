/**
 * The sandbox's memory, disk, /dev, user-namespace and seccomp limits: each reproduced from
 * inside a tool call, each hit returned as the call's result with its reason.
 */
import assert from "node:assert/strict";
import { statfsSync } from "node:fs";
import { describe } from "node:test";
import type { Toolbox } from "../../src/contracts/tool.js";
import { parseSpec } from "../../src/core/spec-loader.js";
import { sandboxLimitsOf } from "../../src/tools/from-spec.js";
import { runsAsRoot } from "../../src/tools/sandbox.js";
import { refusedSyscalls, seccompFilter } from "../../src/tools/seccomp.js";
import { createToolbox } from "../../src/tools/toolbox.js";
import { demoSpecYaml } from "../helpers/study.js";
import { after, describeNeeding, it, needsBubblewrap } from "../helpers/prerequisites.js";

const boxes: Toolbox[] = [];
async function toolbox(options: Parameters<typeof createToolbox>[0] = {}): Promise<Toolbox> {
  const box = await createToolbox(options);
  boxes.push(box);
  return box;
}
after(async () => {
  for (const box of boxes) await box.dispose();
});

let callNumber = 0;
function call(box: Toolbox, name: string, args: Record<string, unknown>) {
  callNumber += 1;
  return box.invoke({ id: `limits-${callNumber}`, name, arguments: JSON.stringify(args) });
}

describeNeeding(needsBubblewrap(), "sandbox: memory", () => {
  it("refuses an allocation over the per-process limit and says so", async () => {
    const box = await toolbox({ limits: { memoryMb: 256 } });
    // 512 MiB, touched: without the limit this succeeds on any machine that can run the suite.
    const result = await call(box, "python", { code: "b = bytearray(512 * 1024 * 1024)\nprint('allocated', len(b))" });
    assert.equal(result.limitHit, "memory", result.output);
    assert.doesNotMatch(result.output, /allocated/);
    assert.match(result.output, /memory limit of 256 MiB per process reached/);
    const small = await call(box, "python", { code: "b = bytearray(64 * 1024 * 1024)\nprint('allocated', len(b))" });
    assert.equal(small.error, undefined, small.output);
    assert.equal(small.output, `allocated ${64 * 1024 * 1024}\n`);
  });
});

describeNeeding(needsBubblewrap(), "sandbox: disk", () => {
  it("holds /dev read-only and /dev/shm and /tmp to their size", async () => {
    const box = await toolbox({ limits: { tmpMb: 4 } });
    const dev = await call(box, "bash", { cmd: "dd if=/dev/zero of=/dev/big bs=1M count=8" });
    assert.match(dev.output, /Read-only file system/, dev.output);
    assert.ok(dev.error, "writing into /dev should fail");
    for (const dir of ["/dev/shm", "/tmp"]) {
      const full = await call(box, "bash", { cmd: `dd if=/dev/zero of=${dir}/big bs=1M count=8` });
      assert.equal(full.limitHit, "disk", `${dir}: ${full.output}`);
      assert.match(full.output, /No space left on device/);
      assert.match(full.output, /\/tmp and \/dev\/shm 4 MiB each/);
    }
    const devNull = await call(box, "bash", { cmd: "echo x > /dev/null && echo ok" });
    assert.equal(devNull.output, "ok\n");
  });

  it("caps a file at the disk limit (RLIMIT_FSIZE)", async () => {
    const box = await toolbox({ limits: { diskMb: 4 } });
    const result = await call(box, "bash", { cmd: "head -c 8M /dev/zero > big.bin" });
    assert.equal(result.limitHit, "disk", result.output);
    assert.match(result.output, /disk limit reached: the work dir holds 4 MiB/);
    const size = await call(box, "bash", { cmd: "stat -c %s big.bin" });
    assert.equal(Number(size.output), 4 * 1024 * 1024);
  });

  it("holds the work dir to the disk limit in total when running as root", { skip: !runsAsRoot() }, async () => {
    const box = await toolbox({ limits: { diskMb: 8 } });
    assert.ok(statfsSync(box.workDir).blocks * statfsSync(box.workDir).bsize <= 8 * 1024 * 1024, "work dir size");
    // Many files, each under the per-file limit, together over the work dir's size.
    const result = await call(box, "bash", {
      cmd: "for i in $(seq 1 6); do head -c 3M /dev/zero > part$i.bin || exit 1; done; echo all",
    });
    assert.equal(result.limitHit, "disk", result.output);
    assert.doesNotMatch(result.output, /^all$/m);
    const used = await call(box, "bash", { cmd: "du -sk . | cut -f1" });
    assert.ok(Number(used.output) <= 8 * 1024, `work dir used ${used.output.trim()} KiB`);
  });
});

describeNeeding(needsBubblewrap(), "sandbox: kernel surface", () => {
  it("creates no nested user namespace and runs under a seccomp filter", async () => {
    const box = await toolbox();
    const userns = await call(box, "bash", { cmd: "unshare -Ur id" });
    assert.ok(userns.error, `unshare should fail: ${userns.output}`);
    assert.doesNotMatch(userns.output, /uid=0/);
    const status = await call(box, "bash", { cmd: "grep Seccomp: /proc/self/status" });
    assert.match(status.output, /Seccomp:\s+2/);
    const keyctl = await call(box, "python", {
      code: [
        "import ctypes, os",
        "libc = ctypes.CDLL(None, use_errno=True)",
        "nr = {'x86_64': 250, 'aarch64': 219}[os.uname().machine]",
        "print(libc.syscall(nr, 0, 0), os.strerror(ctypes.get_errno()))",
      ].join("\n"),
    });
    assert.equal(keyctl.output, "-1 Operation not permitted\n", keyctl.output);
  });

  it("compiles one comparison per refused call", () => {
    const filter = seccompFilter();
    assert.equal(filter.length % 8, 0, "whole instructions");
    // arch check (3), load number (1), x32 bit (x86-64), one per call, allow and deny.
    const header = process.arch === "x64" ? 5 : 4;
    assert.equal(filter.length / 8, header + refusedSyscalls().length + 2);
  });
});

describe("sandbox limits from the spec", () => {
  it("reads memory_mb, disk_mb and tmp_mb with documented defaults", () => {
    const limitsOf = (agents: string) =>
      sandboxLimitsOf(parseSpec(`${demoSpecYaml()}agents:\n${agents}\n`, "study.yaml").agents?.sandbox as never);
    const defaults = limitsOf("  tools: [bash]");
    assert.deepEqual([defaults.memoryMb, defaults.diskMb, defaults.tmpMb], [2048, 512, 256]);
    const set = limitsOf("  sandbox: {memory_mb: 512, disk_mb: 64, tmp_mb: 16}");
    assert.deepEqual([set.memoryMb, set.diskMb, set.tmpMb], [512, 64, 16]);
    assert.throws(() => limitsOf("  sandbox: {memory_mb: 8}"), /memory_mb/);
  });
});
