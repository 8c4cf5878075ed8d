/** Small study specs written to temp directories, for runner and CLI tests. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface DemoSpecOptions {
  models?: string;
  facets?: string;
  attempts?: number;
  items?: number;
  execution?: string;
  budget?: string;
}

/** Items with invented content: "Demo question k" with four options, gold at k mod 4. */
export function demoItemsYaml(count: number): string {
  return Array.from({ length: count }, (_, i) => {
    const k = i + 1;
    const options = ["alpha", "beta", "gamma", "delta"].map((w) => `${w} ${k}`);
    return [
      `      - id: q${String(k).padStart(3, "0")}`,
      `        stem: Demo question number ${k} about the ${["red", "green", "blue"][k % 3]} box?`,
      `        options: [${options.join(", ")}]`,
      `        gold_index: ${k % 4}`,
    ].join("\n");
  }).join("\n");
}

export function demoSpecYaml(options: DemoSpecOptions = {}): string {
  return `study: demo-study
seed: 3
models:
${
  options.models ??
  `  - id: sim-a
    provider: sim
    model: medium
    params: { temperature: 0 }`
}
benchmarks:
  - id: demo
    loader: inline
    items:
${demoItemsYaml(options.items ?? 10)}
conditions:
  facets:
${options.facets ?? "    format: [mc, oe]"}
attempts: ${options.attempts ?? 1}
execution:
${options.execution ?? "  concurrency: 4"}
${options.budget ? `budget:\n${options.budget}` : ""}
`;
}

/** Writes the spec into a fresh temp directory; returns the spec path and an output dir path. */
export function writeDemoSpec(options: DemoSpecOptions = {}): { dir: string; specPath: string; outDir: string } {
  const dir = mkdtempSync(join(tmpdir(), "parallax-test-"));
  const specPath = join(dir, "study.yaml");
  writeFileSync(specPath, demoSpecYaml(options));
  return { dir, specPath, outDir: join(dir, "out") };
}

/**
 * A demo study of one-call trials (direct scaffold, MC) on an OpenAI-compatible mock at
 * `baseUrl`, its key read from `keyEnv`; the timeout is generous because a loaded machine can
 * be slow to answer from the mock in the test's own process.
 */
export function writeOpenAIMockStudy(options: {
  baseUrl: string;
  keyEnv: string;
  items: number;
  attempts?: number;
  concurrency: number;
  budget?: string;
  rateLimit?: string;
}): { dir: string; specPath: string; outDir: string } {
  return writeDemoSpec({
    items: options.items,
    ...(options.attempts === undefined ? {} : { attempts: options.attempts }),
    facets: "    format: [mc]",
    models: `  - id: gpt
    provider: openai
    model: gpt-4o-mini
    base_url: ${options.baseUrl}/v1
    api_key_env: ${options.keyEnv}
    params: { temperature: 0, max_tokens: 16 }${options.rateLimit ? `\n    rate_limit: ${options.rateLimit}` : ""}`,
    execution: `  concurrency: ${options.concurrency}\n  timeout_s: 600\n  max_retries: 2\n  backoff_base_ms: 1\n  backoff_max_ms: 5`,
    budget: options.budget,
  });
}
