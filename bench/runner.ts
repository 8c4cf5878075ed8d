/**
 * npm run bench:runner — runner throughput and memory.
 *  1. Direct-scaffold studies on the sim provider with zero latency (10k and 100k trials):
 *     trials per second and peak memory (RSS and heap), to show memory stays flat.
 *  2. The sim provider with 200 ms latency per call at concurrency 32: achieved throughput
 *     against the ideal 32 / 0.2 s = 160 requests/s.
 * Each case runs in its own process (so peak memory is the case's own) and a fresh temp
 * directory, against the real SQLite store. Prints Markdown.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStudy } from "../src/run/run-study.js";

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

async function measure(c: Case) {
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-"));
  const specPath = join(dir, "bench.yaml");
  writeFileSync(specPath, specYaml(c));
  global.gc?.();
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  let peakHeap = baseline.heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 25);
  const started = performance.now();
  const result = await runStudy({ specPath, outDir: join(dir, "out"), env: {} });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  rmSync(dir, { recursive: true, force: true });
  const trials = result.summary.finished;
  return {
    label: c.label,
    trials,
    seconds,
    trialsPerSecond: trials / seconds,
    callsPerSecond: result.summary.calls / seconds,
    peakRssMb: peakRss / 2 ** 20,
    peakHeapMb: peakHeap / 2 ** 20,
  };
}

const cases: Case[] = [
  { label: "sim, 0 ms, 10k trials", models: 5, items: 1000, attempts: 1, latencyMs: 0, concurrency: 32 },
  { label: "sim, 0 ms, 100k trials", models: 5, items: 1000, attempts: 10, latencyMs: 0, concurrency: 32 },
  { label: "sim, 200 ms, concurrency 32", models: 2, items: 400, attempts: 2, latencyMs: 200, concurrency: 32 },
];

type Measurement = Awaited<ReturnType<typeof measure>>;

const caseIndex = process.argv[2];
if (caseIndex !== undefined) {
  process.stdout.write(JSON.stringify(await measure(cases[Number(caseIndex)])));
  process.exit(0);
}

const rows: Measurement[] = [];
for (let i = 0; i < cases.length; i++) {
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
const latency = rows[2];
console.log(
  `\nWith 200 ms latency at concurrency 32: ${latency.callsPerSecond.toFixed(1)} requests/s of the ideal ${ideal} (${((100 * latency.callsPerSecond) / ideal).toFixed(1)}%).`,
);
