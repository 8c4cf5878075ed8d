/**
 * npm run bench:http — what a run costs as a whole process, against a local OpenAI-compatible
 * mock (bench/http-mock.ts, its own process), the built CLI (`npm run build` first):
 *  1. fixed cost: `parallax run` of a 1-trial study with the mock answering at once, against a
 *     raw fetch client (node, one request) as the anchor;
 *  2. the HTTP run: 2,000 trials at concurrency 32 with the mock answering after 200 ms, against
 *     the ideal 2,000 / (32 / 0.2 s) = 12.5 s and against a raw fetch client making the same
 *     2,000 requests at concurrency 32. The mock reports its request span (first request received
 *     to last answer sent), so the time outside it is the run's start-up and closing.
 * The two commands of a case run in turn (A B A B ...), each in a fresh directory (the response
 * cache lives beside the spec, so every run starts cold); medians of the pairs. Prints Markdown,
 * or JSON with --json. Options: --pairs N (default 5 for the fixed cost, 3 for the HTTP run),
 * --only fixed|http, --cli PATH (default dist/bundle/parallax.js).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { demoItemsYaml } from "../tests/helpers/study.js";

const REPO = resolve(import.meta.dirname, "..");
const KEY_ENV = "BENCH_HTTP_KEY";

export const HTTP_TRIALS = 2000;
export const HTTP_CONCURRENCY = 32;
export const HTTP_LATENCY_S = 0.2;
/** The ideal whole run: every slot busy from the first request to the last. */
export const HTTP_IDEAL_S = HTTP_TRIALS / (HTTP_CONCURRENCY / HTTP_LATENCY_S);

function specYaml(url: string, trials: number, concurrency: number): string {
  return `study: bench-http
seed: 1
models:
  - id: subject
    provider: openai
    model: gpt-4o-mini
    base_url: ${url}/v1
    api_key_env: ${KEY_ENV}
    params: { temperature: 0, max_tokens: 16 }
benchmarks:
  - id: demo
    loader: inline
    items:
${demoItemsYaml(trials)}
conditions:
  facets:
    format: [mc]
execution:
  concurrency: ${concurrency}
`;
}

/** The anchor: node's fetch making `count` chat-completion requests, `concurrency` at a time. */
const FETCH_CLIENT = `
const [url, count, concurrency] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const body = JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Demo question?" }], max_tokens: 16 });
let next = 0;
async function lane() {
  while (next < count) {
    next++;
    const response = await fetch(url + "/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-bench" }, body });
    if (!response.ok) throw new Error("HTTP " + response.status);
    await response.json();
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
`;

export interface Mock {
  url: string;
  span: () => Promise<{ requests: number; first: number; last: number }>;
  reset: () => Promise<void>;
  stop: () => void;
}

export async function startMock(latencyMs: number): Promise<Mock> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", join(REPO, "bench/http-mock.ts"), String(latencyMs)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout!.setEncoding("utf8");
    child.stdout!.once("data", (line: string) => resolveUrl(line.trim()));
    child.once("exit", (code) => reject(new Error(`the mock exited with ${code}`)));
  });
  return {
    url,
    span: async () => (await fetch(`${url}/span`)).json(),
    reset: async () => {
      await fetch(`${url}/span/reset`, { method: "POST" });
    },
    stop: () => child.kill("SIGTERM"),
  };
}

/** Wall seconds of one process, which must exit 0. */
function timeProcess(command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const child = spawnSync(command, args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const seconds = (performance.now() - started) / 1000;
  if (child.status !== 0)
    throw new Error(`${command} ${args.join(" ")} exited ${child.status}: ${child.stderr.slice(-1500)}`);
  return seconds;
}

export interface PairSamples {
  /** Per pair: the Parallax run's wall seconds, the anchor's, and (HTTP run) the request span. */
  parallax: number[];
  anchor: number[];
  span: number[];
  /** 1-minute load average before and after the sitting. */
  load: [number, number];
}

/** One sitting's shape: trials per run, the run's concurrency, and how many (Parallax, anchor) pairs. */
interface SittingShape {
  trials: number;
  concurrency: number;
  pairs: number;
}

async function sitting(mock: Mock, cli: string, shape: SittingShape): Promise<PairSamples> {
  const { trials, concurrency, pairs } = shape;
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-http-"));
  const client = join(dir, "client.mjs");
  writeFileSync(client, FETCH_CLIENT);
  const env = { ...process.env, [KEY_ENV]: "sk-bench-http" };
  const samples: PairSamples = { parallax: [], anchor: [], span: [], load: [loadavg()[0], 0] };
  const parallaxRun = async (round: number) => {
    const studyDir = join(dir, `study-${round}`);
    const specPath = join(studyDir, "study.yaml");
    mkdirSync(studyDir, { recursive: true });
    writeFileSync(specPath, specYaml(mock.url, trials, concurrency));
    await mock.reset();
    const seconds = timeProcess(process.execPath, [cli, "run", specPath, "--out", join(studyDir, "out")], env);
    const span = await mock.span();
    if (span.requests !== trials) throw new Error(`the run made ${span.requests} requests, expected ${trials}`);
    rmSync(studyDir, { recursive: true, force: true });
    return { seconds, span: (span.last - span.first) / 1000 };
  };
  const anchorRun = () => timeProcess(process.execPath, [client, mock.url, String(trials), String(concurrency)], env);
  try {
    await parallaxRun(-1); // warm-up: the page cache holds the CLI's files afterwards
    anchorRun();
    for (let round = 0; round < pairs; round++) {
      const run = await parallaxRun(round);
      samples.parallax.push(run.seconds);
      samples.span.push(run.span);
      samples.anchor.push(anchorRun());
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  samples.load[1] = loadavg()[0];
  return samples;
}

/** A 1-trial run, the mock answering at once: the run's fixed cost. */
export async function measureFixedCost(pairs: number, cli: string): Promise<PairSamples> {
  const mock = await startMock(0);
  try {
    return await sitting(mock, cli, { trials: 1, concurrency: 1, pairs });
  } finally {
    mock.stop();
  }
}

/** 2,000 trials at concurrency 32 against 200 ms answers. */
export async function measureHttpRun(pairs: number, cli: string): Promise<PairSamples> {
  const mock = await startMock(HTTP_LATENCY_S * 1000);
  try {
    return await sitting(mock, cli, { trials: HTTP_TRIALS, concurrency: HTTP_CONCURRENCY, pairs });
  } finally {
    mock.stop();
  }
}

export const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(", ");

function printFixed(s: PairSamples): void {
  console.log(
    `\nFixed cost: a 1-trial run against the mock answering at once (load ${s.load.map((l) => l.toFixed(1)).join(" -> ")})\n`,
  );
  console.log("| command | median wall (runs) |");
  console.log("| --- | ---: |");
  console.log(`| parallax run, 1 trial | ${median(s.parallax).toFixed(3)} s (${list(s.parallax)}) |`);
  console.log(`| raw fetch client, 1 request | ${median(s.anchor).toFixed(3)} s (${list(s.anchor)}) |`);
}

function printHttp(s: PairSamples): void {
  const of = (seconds: number) => `${((100 * HTTP_IDEAL_S) / seconds).toFixed(1)}%`;
  const outside = s.parallax.map((p, i) => p - s.span[i]);
  console.log(
    `\nHTTP run: ${HTTP_TRIALS} trials, concurrency ${HTTP_CONCURRENCY}, ${HTTP_LATENCY_S * 1000} ms answers, ideal ${HTTP_IDEAL_S} s (load ${s.load.map((l) => l.toFixed(1)).join(" -> ")})\n`,
  );
  console.log("| measure | median (runs) | of ideal |");
  console.log("| --- | ---: | ---: |");
  console.log(
    `| parallax run, whole process | ${median(s.parallax).toFixed(2)} s (${list(s.parallax)}) | ${of(median(s.parallax))} |`,
  );
  console.log(
    `| parallax run, request span | ${median(s.span).toFixed(2)} s (${list(s.span)}) | ${of(median(s.span))} |`,
  );
  console.log(`| parallax run, outside the span | ${median(outside).toFixed(2)} s (${list(outside)}) | |`);
  console.log(
    `| raw fetch client, whole process | ${median(s.anchor).toFixed(2)} s (${list(s.anchor)}) | ${of(median(s.anchor))} |`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      pairs: { type: "string" },
      only: { type: "string" },
      cli: { type: "string", default: join(REPO, "dist/bundle/parallax.js") },
      json: { type: "boolean", default: false },
    },
  });
  const pairs = values.pairs === undefined ? undefined : Number(values.pairs);
  const out: { fixed?: PairSamples; http?: PairSamples } = {};
  if (values.only !== "http") out.fixed = await measureFixedCost(pairs ?? 5, values.cli);
  if (values.only !== "fixed") out.http = await measureHttpRun(pairs ?? 3, values.cli);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }
  if (out.fixed) printFixed(out.fixed);
  if (out.http) printHttp(out.http);
}

if (process.argv[1] === import.meta.filename) await main();
