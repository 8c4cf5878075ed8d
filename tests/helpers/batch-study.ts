/**
 * The batch-mode tests' study: demo items against one provider's batch mock, in sync or batch
 * mode, and the readings the tests compare (each trial's outcome, the calls' batch ids and costs).
 */
import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../src/run/store/open.js";
import type { CallRecord } from "../../src/contracts/trial.js";
import { type AnthropicBatchMock, startAnthropicBatchMock } from "./mock-batch-anthropic.js";
import { type GoogleBatchMock, startGoogleBatchMock } from "./mock-batch-google.js";
import { type OpenAIBatchMock, startOpenAIBatchMock } from "./mock-batch-openai.js";
import type { BatchMockState } from "./mock-batch.js";
import type { MockServer } from "./mock-server.js";
import { writeDemoSpec } from "./study.js";

export const BATCH_TEST_KEY_ENV = "PARALLAX_BATCH_TEST_KEY";
export const BATCH_TEST_KEY = "sk-batch-test-0000000000000000000001";
export const PRICE = { input_per_mtok: 2, output_per_mtok: 8 };

export interface ProviderCase {
  provider: "openai" | "anthropic" | "google";
  model: string;
  start(): Promise<{ server: MockServer; state: BatchMockState }>;
  baseUrl(url: string): string;
}

export const PROVIDER_CASES: ProviderCase[] = [
  {
    provider: "openai",
    model: "gpt-4o-mini",
    start: (): Promise<OpenAIBatchMock> => startOpenAIBatchMock(BATCH_TEST_KEY),
    baseUrl: (url) => `${url}/v1`,
  },
  {
    provider: "anthropic",
    model: "claude-haiku-4-5",
    start: (): Promise<AnthropicBatchMock> => startAnthropicBatchMock(BATCH_TEST_KEY),
    baseUrl: (url) => url,
  },
  {
    provider: "google",
    model: "gemini-2.5-flash",
    start: (): Promise<GoogleBatchMock> => startGoogleBatchMock(BATCH_TEST_KEY),
    baseUrl: (url) => url,
  },
];

export function batchSpec(
  c: ProviderCase,
  url: string,
  options: {
    mode: "sync" | "batch";
    items?: number;
    maxRetries?: number;
    facets?: string;
    hold?: boolean;
    budget?: string;
    /** The model's provider options, as YAML flow mapping (e.g. "{ completions_logprobs: true }"). */
    options?: string;
  },
) {
  const execution = [
    "  concurrency: 4",
    `  max_retries: ${options.maxRetries ?? 2}`,
    "  backoff_base_ms: 1",
    "  backoff_max_ms: 5",
    `  mode: ${options.mode}`,
    // A batch as large as the study: the first round fills it and goes out at once, whatever the
    // machine's speed; resubmissions (queued together when a batch ends) go after the quiet period.
    `  batch: { max_requests: ${options.items ?? 8}, flush_after_ms: 150, poll_initial_ms: 5, poll_max_ms: 20 }`,
  ].join("\n");
  return writeDemoSpec({
    items: options.items ?? 8,
    facets: options.facets ?? "    format: [mc]",
    budget: options.budget,
    execution,
    models: `  - id: subject
    provider: ${c.provider}
    model: ${c.model}
    base_url: ${c.baseUrl(url)}
    api_key_env: ${BATCH_TEST_KEY_ENV}
    params: { temperature: 0, max_tokens: 32 }
    price: { input_per_mtok: ${PRICE.input_per_mtok}, output_per_mtok: ${PRICE.output_per_mtok} }${
      options.options ? `\n    options: ${options.options}` : ""
    }`,
  });
}

export interface TrialReading {
  status: string;
  score: number | null;
  parsedAnswer: string | null;
  failureBucket: string | null;
  executions: number;
}

export async function readRun(outDir: string) {
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const trials = new Map<string, TrialReading>();
    for (const t of await store.listTrials(run.id)) {
      trials.set(t.id, {
        status: t.status,
        score: t.outcome?.score ?? null,
        parsedAnswer: t.outcome?.parsedAnswer ?? null,
        failureBucket: t.outcome?.failureBucket ?? null,
        executions: t.executions,
      });
    }
    const calls: CallRecord[] = await store.listCalls(run.id);
    const batches = await store.listBatches(run.id);
    return { runId: run.id, trials, calls, batches };
  } finally {
    await store.close();
  }
}

/** Provider batches recorded in a study directory's SQLite store (0 before the tables exist). */
export function recordedBatches(outDir: string): number {
  const file = join(outDir, "parallax.db");
  if (!existsSync(file)) return 0;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("select count(*) as n from provider_batches").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}
