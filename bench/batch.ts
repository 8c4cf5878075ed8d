/**
 * npm run bench:batch — batch mode's own cost, against the local OpenAI batch mock (no provider
 * latency, so what is measured is ours: rendering, the store's batch records, the JSONL upload,
 * the results file, the per-request decode and the trial commits).
 *  1. 2,000 direct trials in batch mode (batches of 1,000) vs the same study synchronously at
 *     concurrency 64: wall time and trials per second.
 *  2. The store half alone, one 1,000-request batch on SQLite: recordSubmission (before the
 *     create) and recordSubmitted (its batch id, after), then settleBatch.
 * Prints Markdown.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runStudy } from "../src/run/execute/run-study.js";
import { openStore } from "../src/run/store/open.js";
import { startOpenAIBatchMock } from "../tests/helpers/mock-batch-openai.js";
import { demoItemsYaml } from "../tests/helpers/study.js";

const KEY = "sk-bench-batch-00000000000000000001";
const TRIALS = Number(process.env.BENCH_BATCH_TRIALS ?? 2000);

function spec(url: string, mode: "sync" | "batch"): string {
  return `study: bench-batch
seed: 1
models:
  - id: subject
    provider: openai
    model: gpt-4o-mini
    base_url: ${url}/v1
    api_key_env: BENCH_BATCH_KEY
    params: { temperature: 0, max_tokens: 16 }
benchmarks:
  - id: demo
    loader: inline
    items:
${demoItemsYaml(TRIALS)}
conditions:
  facets:
    format: [mc]
execution:
  concurrency: 64
  mode: ${mode}
  batch: { max_requests: 1000, flush_after_ms: 200, poll_initial_ms: 50, poll_max_ms: 200 }
  cache: false
`;
}

async function timeRun(url: string, mode: "sync" | "batch"): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), `parallax-bench-batch-${mode}-`));
  const specPath = join(dir, "study.yaml");
  writeFileSync(specPath, spec(url, mode));
  const started = performance.now();
  const result = await runStudy({ specPath, outDir: join(dir, "out"), env: { BENCH_BATCH_KEY: KEY } });
  const seconds = (performance.now() - started) / 1000;
  if (result.counts.finished !== TRIALS) throw new Error(`${mode}: ${result.counts.finished} of ${TRIALS} finished`);
  return seconds;
}

async function storeHalf(): Promise<{ intent: number; record: number; settle: number }> {
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-batch-store-"));
  const store = await openStore(dir);
  try {
    await store.saveRun({
      id: "r",
      study: "s",
      specHash: "h",
      manifestHash: "m",
      // biome-ignore lint/suspicious/noExplicitAny: the store only round-trips the spec
      spec: { study: "s" } as any,
      createdAt: new Date().toISOString(),
      parallaxVersion: "bench",
    });
    const ids = Array.from({ length: 1000 }, (_, i) => `px${String(i).padStart(38, "0")}`);
    const t = performance.now();
    const submission = { token: "t", provider: "openai", modelId: "m", model: "gpt-4o-mini", createdAt: "now" };
    await store.recordSubmission("r", submission, ids);
    const t0 = performance.now();
    await store.recordSubmitted("r", "t", { batchId: "b", provider: "openai", modelId: "m", submittedAt: "now" });
    const t1 = performance.now();
    const body = { choices: [{ index: 0, message: { role: "assistant", content: "Answer: B" } }] };
    await store.settleBatch(
      "r",
      "b",
      "completed",
      ids.map((customId) => ({ customId, state: "done" as const, raw: { kind: "response" as const, body } })),
    );
    const t2 = performance.now();
    return { intent: t0 - t, record: t1 - t0, settle: t2 - t1 };
  } finally {
    await store.close();
  }
}

const mock = await startOpenAIBatchMock(KEY);
try {
  const sync = await timeRun(mock.server.url, "sync");
  const batch = await timeRun(mock.server.url, "batch");
  const store = await storeHalf();
  console.log(`| case | trials | wall s | trials/s |`);
  console.log(`| --- | ---: | ---: | ---: |`);
  console.log(`| sync, concurrency 64 | ${TRIALS} | ${sync.toFixed(2)} | ${(TRIALS / sync).toFixed(0)} |`);
  console.log(
    `| batch, ${Math.ceil(TRIALS / 1000)} batches of <= 1,000 | ${TRIALS} | ${batch.toFixed(2)} | ${(TRIALS / batch).toFixed(0)} |`,
  );
  console.log(
    `\nstore (SQLite), 1,000 requests: recordSubmission ${store.intent.toFixed(0)} ms, recordSubmitted ${store.record.toFixed(0)} ms, settleBatch ${store.settle.toFixed(0)} ms`,
  );
  console.log(`batches created: ${mock.state.creates}, result files read: ${mock.state.resultReads}`);
} finally {
  await mock.server.close();
}
