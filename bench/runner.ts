/**
 * npm run bench:runner — runner throughput and memory.
 *  1. Direct-scaffold studies on the sim provider with zero latency (10k and 100k trials):
 *     trials per second and peak memory (RSS and heap), to show memory stays flat.
 *  2. The sim provider with 200 ms latency per call at concurrency 32: achieved throughput
 *     against the ideal 32 / 0.2 s = 160 requests/s.
 *  3. `--agents` (alone): agent trials (S1-S3) on the simulated panel with real sandboxed tool
 *     calls on the agents quickstart tasks, 1,000 by default (BENCH_AGENT_TRIALS to change):
 *     trials per second and the mean duration of a sandboxed tool call.
 * Each case runs in its own process (so peak memory is the case's own) and a fresh temp
 * directory, against the real SQLite store. Prints Markdown.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runStudy } from "../src/run/execute/run-study.js";

interface Case {
  label: string;
  models: number;
  items: number;
  attempts: number;
  latencyMs: number;
  concurrency: number;
}

function specYaml(c: Case): string {
  const models = Array.from(
    { length: c.models },
    (_, i) =>
      `  - id: sim-${i}\n    provider: sim\n    model: medium\n    options: { latency_ms: ${c.latencyMs}, seed: ${i} }`,
  ).join("\n");
  const items = Array.from(
    { length: c.items },
    (_, i) =>
      `      - { id: b${i}, stem: "Bench question ${i} about item ${i * 7}?", options: [one ${i}, two ${i}, three ${i}, four ${i}], gold_index: ${i % 4} }`,
  ).join("\n");
  return `study: bench\nmodels:\n${models}\nbenchmarks:\n  - id: bench\n    loader: inline\n    items:\n${items}\nconditions:\n  facets:\n    scaffold: [direct]\n    format: [mc, oe]\nattempts: ${c.attempts}\nexecution:\n  concurrency: ${c.concurrency}\n`;
}

/**
 * The kernel's split of resident memory (Linux): anonymous (V8 heap, malloc, SQLite's page
 * cache), file-backed (mapped code and files) and shared (SQLite's WAL index is a mapped -shm file).
 */
function rssParts(): { anon: number; file: number; shmem: number } {
  if (!existsSync("/proc/self/status")) return { anon: 0, file: 0, shmem: 0 };
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { anon: kb("RssAnon"), file: kb("RssFile"), shmem: kb("RssShmem") };
}

const mb = (bytes: number) => bytes / 2 ** 20;

async function measure(c: Case) {
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-"));
  const specPath = join(dir, "bench.yaml");
  writeFileSync(specPath, specYaml(c));
  global.gc?.();
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  let peakHeap = baseline.heapUsed;
  const peak = { heapTotal: 0, external: 0, anon: 0, file: 0, shmem: 0 };
  let ticks = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal);
    peak.external = Math.max(peak.external, m.external);
    // /proc is read every 10th sample: it costs more than memoryUsage().
    if (ticks++ % 10 === 0) {
      const parts = rssParts();
      peak.anon = Math.max(peak.anon, parts.anon);
      peak.file = Math.max(peak.file, parts.file);
      peak.shmem = Math.max(peak.shmem, parts.shmem);
    }
  }, 25);
  const started = performance.now();
  const result = await runStudy({ specPath, outDir: join(dir, "out"), env: {} });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const dbBytes = statSync(join(dir, "out", "parallax.db")).size;
  global.gc?.();
  const after = process.memoryUsage();
  rmSync(dir, { recursive: true, force: true });
  const trials = result.summary.finished;
  return {
    label: c.label,
    trials,
    seconds,
    trialsPerSecond: trials / seconds,
    callsPerSecond: result.summary.calls / seconds,
    peakRssMb: mb(peakRss),
    peakHeapMb: mb(peakHeap),
    peakHeapTotalMb: mb(peak.heapTotal),
    peakExternalMb: mb(peak.external),
    peakRssAnonMb: mb(peak.anon),
    peakRssFileMb: mb(peak.file),
    peakRssShmemMb: mb(peak.shmem),
    afterGcRssMb: mb(after.rss),
    afterGcHeapMb: mb(after.heapUsed),
    dbMb: mb(dbBytes),
  };
}

const cases: Case[] = [
  { label: "sim, 0 ms, 10k trials", models: 5, items: 1000, attempts: 1, latencyMs: 0, concurrency: 32 },
  { label: "sim, 0 ms, 100k trials", models: 5, items: 1000, attempts: 10, latencyMs: 0, concurrency: 32 },
  { label: "sim, 200 ms, concurrency 32", models: 2, items: 400, attempts: 2, latencyMs: 200, concurrency: 32 },
];

type Measurement = Awaited<ReturnType<typeof measure>>;

/** Agent trials on the quickstart's tasks (examples/agents), with the run's real toolbox. */
async function measureAgents(target: number) {
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-agents-"));
  const specPath = join(dir, "agents.yaml");
  const tasks = join(import.meta.dirname, "..", "examples", "agents");
  const attempts = Math.max(1, Math.round(target / (3 * 12)));
  writeFileSync(
    specPath,
    `study: bench-agents\nseed: 1\nmodels:\n  - { id: sim, provider: sim, model: mid, params: { temperature: 0.7 }, options: { ability: 1 } }\nbenchmarks:\n  - { id: tasks, loader: gaia, source: ${tasks} }\nconditions:\n  facets:\n    scaffold: [agent_react, planner_actor_rater, planner_executor]\n    format: [oe]\nattempts: ${attempts}\nagents:\n  web: { backend: offline, folder: ${join(tasks, "library")} }\nexecution:\n  concurrency: 8\n`,
  );
  const started = performance.now();
  const result = await runStudy({ specPath, outDir: join(dir, "out"), env: {} });
  const seconds = (performance.now() - started) / 1000;
  const { openStore } = await import("../src/run/store/open.js");
  const store = await openStore(join(dir, "out"));
  const tools = (await store.listCalls(result.runId)).filter((c) => c.role === "tool");
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const sandboxed = tools.filter((c) => !["submit_answer", "submit_verdict"].includes(String(c.note?.tool)));
  const meanMs = sandboxed.reduce((sum, c) => sum + c.latencyMs, 0) / Math.max(1, sandboxed.length);
  return { trials: result.summary.finished + result.summary.errored, seconds, toolCalls: sandboxed.length, meanMs };
}

if (process.argv.includes("--agents")) {
  const r = await measureAgents(Number(process.env.BENCH_AGENT_TRIALS ?? 1000));
  console.log("| case | trials | seconds | trials/s | sandboxed tool calls | mean ms per sandboxed call |");
  console.log("|---|---:|---:|---:|---:|---:|");
  console.log(
    `| agents S1-S3, sim, real sandbox | ${r.trials} | ${r.seconds.toFixed(1)} | ${(r.trials / r.seconds).toFixed(2)} | ${r.toolCalls} | ${r.meanMs.toFixed(0)} |`,
  );
  process.exit(0);
}

/**
 * `--whole-process [PAIRS]`: the 10k-trial case as `parallax run` (the built CLI, whole process)
 * against the same study run in process (runStudy, the figure above), in turn, PAIRS times
 * (default 3): what a run costs outside runStudy (Node's start, the CLI, module loading).
 */
async function wholeProcessPairs(pairs: number): Promise<void> {
  const c = cases[0];
  const cli = join(import.meta.dirname, "..", "dist", "bundle", "parallax.js");
  const inProcess: number[] = [];
  const whole: number[] = [];
  const loads = [loadavg()[0]];
  for (let pair = 0; pair < pairs; pair++) {
    const child = spawnSync(process.execPath, ["--import", "tsx", import.meta.filename, "0"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (child.status !== 0) throw new Error("the in-process case failed");
    inProcess.push((JSON.parse(child.stdout) as Measurement).seconds);
    const dir = mkdtempSync(join(tmpdir(), "parallax-bench-"));
    writeFileSync(join(dir, "bench.yaml"), specYaml(c));
    const started = performance.now();
    const run = spawnSync(process.execPath, [cli, "run", join(dir, "bench.yaml"), "--out", join(dir, "out")], {
      encoding: "utf8",
    });
    whole.push((performance.now() - started) / 1000);
    rmSync(dir, { recursive: true, force: true });
    if (run.status !== 0) throw new Error(`parallax run failed: ${run.stderr.slice(-1000)}`);
  }
  loads.push(loadavg()[0]);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(", ");
  console.log(`${c.label}, ${pairs} pairs, load ${loads.map((l) => l.toFixed(1)).join(" -> ")}\n`);
  console.log("| measure | median s (runs) | trials/s |");
  console.log("|---|---:|---:|");
  console.log(
    `| in process (runStudy) | ${med(inProcess).toFixed(2)} (${list(inProcess)}) | ${(10_000 / med(inProcess)).toFixed(0)} |`,
  );
  console.log(
    `| whole process (parallax run) | ${med(whole).toFixed(2)} (${list(whole)}) | ${(10_000 / med(whole)).toFixed(0)} |`,
  );
  console.log(`| difference per pair | ${med(whole.map((w, i) => w - inProcess[i])).toFixed(2)} | |`);
}

const wholeAt = process.argv.indexOf("--whole-process");
if (wholeAt >= 0) {
  await wholeProcessPairs(Number(process.argv[wholeAt + 1]) || 3);
  process.exit(0);
}

const caseIndex = process.argv[2];
if (caseIndex !== undefined) {
  process.stdout.write(JSON.stringify(await measure(cases[Number(caseIndex)])));
  process.exit(0);
}

// BENCH_CASES=0,1 runs only those cases (the memory comparison) when time is short.
const selected = process.env.BENCH_CASES?.split(",").map(Number) ?? cases.map((_, i) => i);
const rows: Measurement[] = [];
for (const i of selected) {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", import.meta.filename, String(i)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`bench case ${cases[i].label} failed`);
  const r = JSON.parse(child.stdout) as Measurement;
  rows.push(r);
  process.stderr.write(`${r.label}: ${r.trialsPerSecond.toFixed(0)} trials/s\n`);
}
const ideal = 32 / 0.2;
console.log("| case | trials | seconds | trials/s | peak RSS (MB) | peak heap (MB) |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.trials} | ${r.seconds.toFixed(2)} | ${r.trialsPerSecond.toFixed(0)} | ${r.peakRssMb.toFixed(0)} | ${r.peakHeapMb.toFixed(0)} |`,
  );
}
console.log(
  "\n| case | heap total | external | RSS anon | RSS file | RSS shmem | RSS after GC | heap after GC | parallax.db |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  const cells = [
    r.peakHeapTotalMb,
    r.peakExternalMb,
    r.peakRssAnonMb,
    r.peakRssFileMb,
    r.peakRssShmemMb,
    r.afterGcRssMb,
    r.afterGcHeapMb,
    r.dbMb,
  ];
  console.log(`| ${r.label} | ${cells.map((v) => v.toFixed(0)).join(" | ")} |`);
}
const latency = rows.find((r) => r.label === cases[2].label);
if (latency)
  console.log(
    `\nWith 200 ms latency at concurrency 32: ${latency.callsPerSecond.toFixed(1)} requests/s of the ideal ${ideal} (${((100 * latency.callsPerSecond) / ideal).toFixed(1)}%).`,
  );
