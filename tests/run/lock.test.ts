import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runStudy } from "../../src/run/execute/run-study.js";
import { acquireStudyLock, LOCK_FILE } from "../../src/run/execute/study-lock.js";
import { runCli } from "../helpers/cli.js";
import { writeDemoSpec } from "../helpers/study.js";

/** The pid of a process that has exited (so no process holds it, barring reuse). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

describe("study directory lock", () => {
  test("a second run on a locked directory is refused with the holder's pid and host, writing nothing", async () => {
    const { specPath, outDir } = writeDemoSpec({ items: 3 });
    mkdirSync(outDir, { recursive: true });
    const lock = await acquireStudyLock(outDir);
    try {
      const result = runCli(["run", specPath, "--out", outDir]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`in use by another run \\(pid ${process.pid} on host ${hostname()}`));
      assert.equal(existsSync(join(outDir, "parallax.db")), false, "the refused run opened no store");
      assert.equal(existsSync(join(outDir, "manifest.json")), false);
    } finally {
      lock.release();
    }
    assert.equal(existsSync(join(outDir, LOCK_FILE)), false, "release removes the lock file");
  });

  test("two runs at once in one process: the second is refused and the first completes", async () => {
    // Enough trials that the first run still holds the lock while the second prepares its study.
    const { specPath, outDir } = writeDemoSpec({ items: 1_500 });
    const first = runStudy({ specPath, outDir, env: {} });
    let firstSettled = false;
    first.then(
      () => (firstSettled = true),
      () => (firstSettled = true),
    );
    while (!firstSettled && !existsSync(join(outDir, LOCK_FILE)))
      await new Promise((resolve) => setTimeout(resolve, 5));
    const second = runStudy({ specPath, outDir, env: {} });
    await assert.rejects(second, /in use by another run/, "the second run is refused");
    const done = await first;
    assert.deepEqual(done.counts, { pending: 0, finished: 3_000, errored: 0 });
    assert.equal(existsSync(join(outDir, LOCK_FILE)), false, "the first run releases its lock");
  });

  test("a stale lock (holder dead on this host) is taken over with a note, and released at the end", () => {
    const { specPath, outDir } = writeDemoSpec({ items: 3 });
    mkdirSync(outDir, { recursive: true });
    const pid = deadPid();
    writeFileSync(join(outDir, LOCK_FILE), JSON.stringify({ pid, host: hostname(), startedAt: "earlier" }));
    const result = runCli(["run", specPath, "--out", outDir]);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`took over a stale lock .*pid ${pid}`));
    assert.equal(existsSync(join(outDir, LOCK_FILE)), false);
  });

  test("a lock held from another host is never taken over", () => {
    const { specPath, outDir } = writeDemoSpec({ items: 3 });
    mkdirSync(outDir, { recursive: true });
    const holder = { pid: deadPid(), host: `${hostname()}-elsewhere`, startedAt: "earlier" };
    writeFileSync(join(outDir, LOCK_FILE), JSON.stringify(holder));
    const result = runCli(["run", specPath, "--out", outDir]);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`pid ${holder.pid} on host ${holder.host}`));
    assert.deepEqual(JSON.parse(readFileSync(join(outDir, LOCK_FILE), "utf8")), holder);
  });

  test("the lock is released when the run fails", async () => {
    const first = writeDemoSpec({ items: 3 });
    await runStudy({ specPath: first.specPath, outDir: first.outDir, env: {} });
    const other = writeDemoSpec({ items: 4 });
    await assert.rejects(runStudy({ specPath: other.specPath, outDir: first.outDir, env: {} }), /different spec/);
    assert.equal(existsSync(join(first.outDir, LOCK_FILE)), false);
  });
});
