/**
 * An authentication failure (401/403) is its own failure bucket and stops the run at once,
 * and `parallax run` exits with code 4 whenever trials errored.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ProviderError } from "../../src/core/errors.js";
import { httpError } from "../../src/models/errors.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { runCli } from "../helpers/cli.js";
import { startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import { writeDemoSpec } from "../helpers/study.js";

const CLI = join(import.meta.dirname, "..", "..", "src", "cli", "main.ts");

function runCliAsync(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const GOOD_KEY = "sk-good-key-1234567890abcdef";
const BAD_KEY = "sk-revoked-key-0987654321fedcba";

let mock: MockServer;
before(async () => {
  mock = await startOpenAIMock([GOOD_KEY]);
});
after(() => mock.close());

function openaiSpec(concurrency: number) {
  return writeDemoSpec({
    items: 10,
    models: `  - id: gpt
    provider: openai
    model: gpt-4o-mini
    base_url: ${mock.url}/v1
    api_key_env: PARALLAX_AUTH_TEST_KEY
    params: { temperature: 0, max_tokens: 32 }`,
    execution: `  concurrency: ${concurrency}\n  max_retries: 2\n  backoff_base_ms: 1\n  backoff_max_ms: 5`,
  });
}

describe("authentication failures", () => {
  test("401 and 403 are the auth bucket, not retried; other 4xx stay provider_error", () => {
    for (const status of [401, 403]) {
      const error = httpError({ provider: "openai", status, message: "denied" });
      assert.ok(error instanceof ProviderError, "expected error instanceof ProviderError");
      assert.equal(error.bucket, "auth");
      assert.equal(error.retryable, false);
    }
    assert.equal(httpError({ provider: "openai", status: 400, message: "bad" }).bucket, "provider_error");
  });

  test("a 401 stops the run at once: one errored trial (bucket auth), the rest stay pending", async () => {
    const { specPath, outDir } = openaiSpec(1);
    const before = mock.requests.length;
    const result = await runStudy({ specPath, outDir, env: { PARALLAX_AUTH_TEST_KEY: BAD_KEY } });
    assert.equal(result.summary.stoppedBy, "auth");
    assert.match(result.summary.authFailure ?? "", /HTTP 401/);
    assert.equal(result.summary.authFailure?.includes(BAD_KEY), false, "the key is redacted");
    assert.deepEqual(result.counts, { pending: 19, finished: 0, errored: 1 });
    assert.equal(mock.requests.length - before, 1, "no call after the first 401, and no retry of it");
    const store = await openStore(outDir);
    try {
      const trials = await store.listTrials(result.runId);
      const errored = trials.filter((t) => t.status === "errored");
      assert.deepEqual(
        errored.map((t) => t.outcome?.failureBucket),
        ["auth"],
      );
    } finally {
      await store.close();
    }
    // With the key fixed, the same command resumes and finishes everything.
    const fixed = await runStudy({ specPath, outDir, env: { PARALLAX_AUTH_TEST_KEY: GOOD_KEY } });
    assert.equal(fixed.summary.stoppedBy, "completed");
    assert.deepEqual(fixed.counts, { pending: 0, finished: 20, errored: 0 });
  });

  test("with trials in flight, the calls after the first 401 are abandoned, not errored", async () => {
    const { specPath, outDir } = openaiSpec(4);
    const result = await runStudy({ specPath, outDir, env: { PARALLAX_AUTH_TEST_KEY: BAD_KEY } });
    assert.equal(result.summary.stoppedBy, "auth");
    assert.ok(result.summary.attempted <= 4 + 1, `attempted ${result.summary.attempted}`);
    assert.ok(result.counts.errored >= 1 && result.counts.errored <= 4, JSON.stringify(result.counts));
    assert.ok(result.counts.pending >= 16, JSON.stringify(result.counts));
  });

  test("the CLI exits 4 and says why on an authentication failure", async () => {
    const { specPath, outDir } = openaiSpec(1);
    // Spawned asynchronously: the mock server answers from this process's event loop.
    const result = await runCliAsync(["run", specPath, "--out", outDir], {
      ...process.env,
      PARALLAX_AUTH_TEST_KEY: BAD_KEY,
    });
    assert.equal(result.status, 4, result.stderr);
    assert.match(result.stdout, /stopped: authentication failed \(openai: HTTP 401/);
    assert.equal(result.stdout.includes(BAD_KEY), false);
  });

  test("the CLI exits 4 when trials errored, 0 when none did", () => {
    const flaky = writeDemoSpec({
      items: 6,
      models: `  - id: flaky
    provider: sim
    model: medium
    options: { failure_rate: 0.5, failure_bucket: content_filter }`,
      execution: "  concurrency: 2\n  max_retries: 0",
    });
    const failed = runCli(["run", flaky.specPath, "--out", flaky.outDir]);
    assert.equal(failed.status, 4, failed.stderr);
    assert.match(failed.stdout, /[1-9]\d* errored/);
    const clean = writeDemoSpec({ items: 3 });
    assert.equal(runCli(["run", clean.specPath, "--out", clean.outDir]).status, 0);
  });
});
