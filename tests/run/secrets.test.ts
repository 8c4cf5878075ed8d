/**
 * Secrets stay in the environment: a study against a (mock) OpenAI server with two rotating
 * keys, one of which is rate-limited and one call of which fails for good, leaves no trace of
 * either key anywhere in the study directory (store, WAL, manifest, spec copy) or in exports.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { exportTable } from "../../src/run/export/export.js";
import { runStudy } from "../../src/run/execute/run-study.js";
import { openStore } from "../../src/run/store/open.js";
import { openaiErrors, startOpenAIMock } from "../helpers/mock-openai.js";
import type { MockServer } from "../helpers/mock-server.js";
import { writeDemoSpec } from "../helpers/study.js";

const ENV = {
  PARALLAX_TEST_KEY_1: "sk-secret-one-1234567890abcdef",
  PARALLAX_TEST_KEY_2: "sk-secret-two-0987654321fedcba",
};
const KEYS = Object.values(ENV);

let mock: MockServer;
before(async () => {
  mock = await startOpenAIMock(KEYS);
});
after(() => mock.close());

test("no API key reaches the store, the study files or the exports", async () => {
  const { specPath, outDir } = writeDemoSpec({
    items: 4,
    models: `  - id: gpt
    provider: openai
    model: gpt-4o-mini
    base_url: ${mock.url}/v1
    api_key_env: [PARALLAX_TEST_KEY_1, PARALLAX_TEST_KEY_2]
    params: { temperature: 0, max_tokens: 64 }`,
    execution: "  concurrency: 1\n  max_retries: 1\n  backoff_base_ms: 1\n  backoff_max_ms: 5",
  });
  // A rate limit (retried on the other key), then a non-retryable error that errors a trial.
  mock.enqueue(openaiErrors.rateLimit({ "retry-after": "0" }), openaiErrors.contextLength());
  const result = await runStudy({ specPath, outDir, env: ENV });
  assert.equal(result.counts.errored, 1, "the context-length error ends one trial as errored");
  assert.equal(result.counts.finished, 7);
  assert.ok(
    mock.requests.some((r) => r.headers.authorization === `Bearer ${KEYS[1]}`),
    "both keys were used, so both could have leaked",
  );

  const store = await openStore(outDir);
  const run = (await store.getRun())!;
  let exported = "";
  for (const table of ["trials", "calls"] as const) {
    await exportTable(store, { runId: run.id, facets: ["format"], table, format: "jsonl" }, (chunk) => {
      exported += chunk;
    });
  }
  await store.close();
  assert.match(exported, /context_too_long/, "the errored call is exported with its bucket");

  const texts = [exported, ...readdirSync(outDir).map((f) => readFileSync(join(outDir, f)).toString("latin1"))];
  for (const key of KEYS) {
    for (const text of texts) assert.equal(text.includes(key), false, "an API key was written");
  }
  // The spec copy names the variables, never their values.
  assert.match(readFileSync(join(outDir, "spec.json"), "utf8"), /PARALLAX_TEST_KEY_1/);
});
