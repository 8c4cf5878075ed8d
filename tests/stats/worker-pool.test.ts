import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { workerPool } from "../../src/stats/worker-pool.js";
import type { PoolTestRequest } from "../helpers/pool-worker.js";

const pool = workerPool(new URL("../helpers/pool-worker.ts", import.meta.url));
after(() => pool.close());

const ask = (index: number, request: PoolTestRequest) => pool.request<Float64Array>(index, request);

describe("worker pool", () => {
  it("answers requests on each worker, replies moved back by transfer", async () => {
    const replies = await Promise.all([ask(0, { echo: 1 }), ask(1, { echo: 2 }), ask(0, { echo: 3 })]);
    assert.deepEqual(
      replies.map((r) => Array.from(r)),
      [[2], [4], [6]],
    );
  });

  it("rejects a request whose handler throws or whose reply cannot be posted; the worker answers the next one", async () => {
    await assert.rejects(ask(0, { throw: "no such cell" }), /no such cell/);
    await assert.rejects(ask(0, { uncloneable: "fit" }), /could not be cloned/);
    assert.deepEqual(Array.from(await ask(0, { echo: 5 })), [10]);
  });

  it("rejects instead of hanging when the worker exits before replying, then starts another", async () => {
    await assert.rejects(ask(0, { exit: 3 }), /exited \(code 3\)/);
    assert.deepEqual(Array.from(await ask(0, { echo: 7 })), [14]);
  });

  it("rejects instead of hanging when the worker's module fails to load", async () => {
    const broken = workerPool(new URL("../helpers/no-such-worker.ts", import.meta.url));
    try {
      await assert.rejects(broken.request(0, { echo: 1 }), /no-such-worker/);
    } finally {
      await broken.close();
    }
  });

  it("does not keep the process alive with workers started and never asked, or idle after a reply", () => {
    const pool = JSON.stringify(new URL("../../src/stats/worker-pool.ts", import.meta.url).href);
    const worker = JSON.stringify(new URL("../helpers/pool-worker.ts", import.meta.url).href);
    for (const body of ["p.start(2);", "await p.request(0, { echo: 1 });"]) {
      const script = `const { workerPool } = await import(${pool}); const p = workerPool(new URL(${worker})); ${body}`;
      const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        encoding: "utf8",
        timeout: 60_000,
      });
      assert.equal(child.signal, null, `'${body}' left the process running until the timeout killed it`);
      assert.equal(child.status, 0, child.stderr);
    }
  });
});
