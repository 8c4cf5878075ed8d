/**
 * npm run bench:scale-out — workers sharing one run on PostgreSQL: 1, 2 and 4 worker
 * processes (`parallax run --workers N`), each with 16 trials in flight (4 workers: a total
 * concurrency of 64), against the simulated panel with 200 ms latency per call. Throughput is
 * measured inside the run (first call started to last trial stored, from the store's
 * timestamps), so process start-up is not counted; the ideal is N x 16 / 0.2 s.
 *
 * The CLI runs from the build (`npm run build` first) as `parallax` is installed: the package's
 * `bin`, the bundle (under tsx every worker process would compile the sources again as it starts,
 * about 3 s of CPU each on 2 cores while the others run). The CPU of the worker processes (user + system, from
 * /usr/bin/time, which counts the workers `run` waits for) is reported per trial.
 *
 * `-- --cli PATH` runs another build of the CLI instead (e.g. dist/cli/main.js, tsc's output).
 * `-- --trials N` runs N trials (default 7,680) instead.
 *
 * Uses PARALLAX_TEST_PG_URL, or starts a throwaway cluster as `npm test` does. Prints Markdown.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";

/** The package's `bin`: the command users run (and that `run --workers` starts again for each worker). */
const REPO = join(import.meta.dirname, "..");
const { values } = parseArgs({ options: { cli: { type: "string" }, trials: { type: "string" } } });
/** `-- --cli PATH` runs another build of the CLI (e.g. dist/cli/main.js, tsc's unbundled output). */
const BIN = values.cli
  ? resolve(values.cli)
  : join(
      REPO,
      (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { bin: { parallax: string } }).bin.parallax,
    );
const PER_WORKER = 16;
const LATENCY_MS = 200;
/**
 * 7,680 trials: 4 workers run for about 30 s, so the later workers' start-up (under a second each,
 * while the first already runs) is a small part of the run, as in a real study; at 1,920 trials it
 * would be a tenth of an 8 s run. `-- --trials N` (even) sets another size.
 */
const TRIALS = values.trials ? Number(values.trials) : 7_680;
if (!Number.isInteger(TRIALS) || TRIALS <= 0 || TRIALS % 2 !== 0)
  throw new Error(`--trials must be a positive even number, got ${values.trials}`);

function specYaml(concurrency: number): string {
  const items = Array.from(
    { length: TRIALS / 2 },
    (_, i) =>
      `      - { id: s${i}, stem: "Scale question ${i} about box ${i * 3}?", options: [one ${i}, two ${i}, three ${i}, four ${i}], gold_index: ${i % 4} }`,
  ).join("\n");
  return `study: scale-out\nmodels:\n  - id: sim-a\n    provider: sim\n    model: medium\n    options: { latency_ms: ${LATENCY_MS} }\nbenchmarks:\n  - id: bench\n    loader: inline\n    items:\n${items}\nconditions:\n  facets:\n    format: [mc]\nattempts: 2\nexecution:\n  concurrency: ${concurrency}\n  cache: false\n`;
}

function startPostgres(): { url: string; stop: () => void } {
  if (process.env.PARALLAX_TEST_PG_URL) return { url: process.env.PARALLAX_TEST_PG_URL, stop: () => {} };
  const env = {
    ...process.env,
    PARALLAX_TEST_PG_DIR: join(mkdtempSync(join(tmpdir(), "parallax-bench-pg-")), "cluster"),
    PARALLAX_TEST_PG_PORT: String(20000 + Math.floor(Math.random() * 30000)),
  };
  spawnSync("chmod", ["755", join(env.PARALLAX_TEST_PG_DIR, "..")]);
  const envFile = join(mkdtempSync(join(tmpdir(), "parallax-bench-pg-env-")), "env");
  const started = spawnSync("bash", ["scripts/start-test-postgres.sh", envFile], { stdio: "inherit", env });
  if (started.status !== 0) throw new Error("could not start PostgreSQL for the benchmark");
  const line = readFileSync(envFile, "utf8")
    .split("\n")
    .find((l) => l.startsWith("PARALLAX_TEST_PG_URL="));
  return {
    url: line!.slice("PARALLAX_TEST_PG_URL=".length),
    stop: () => spawnSync("bash", ["scripts/stop-test-postgres.sh"], { stdio: "inherit", env }),
  };
}

async function measure(base: string, workers: number) {
  const schema = `bench_scale_${workers}_${process.pid}`;
  const url = new URL(base);
  url.searchParams.set("schema", schema);
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-scale-"));
  const specPath = join(dir, "spec.yaml");
  writeFileSync(specPath, specYaml(PER_WORKER * workers));
  const args = [
    "-f",
    "%U %S",
    process.execPath,
    BIN,
    "run",
    specPath,
    "--out",
    join(dir, "out"),
    "--store",
    url.toString(),
  ];
  const started = Date.now();
  const run = spawnSync("/usr/bin/time", [...args, "--workers", String(workers)], { encoding: "utf8" });
  const wallS = (Date.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`run with ${workers} workers failed: ${run.stderr}`);
  const [user, system] = run.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  const cpuS = user + system;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(`set search_path to "${schema}"`);
    const { rows } = await client.query(
      `select count(*) as n, (select min(started_at) from calls) as first, max(updated_at) as last
         from trials where status = 'finished'`,
    );
    await client.query(`drop schema "${schema}" cascade`);
    const n = Number(rows[0].n);
    const seconds = (Date.parse(rows[0].last) - Date.parse(rows[0].first)) / 1000;
    return {
      workers,
      n,
      seconds,
      wallS,
      cpuMsPerTrial: (1000 * cpuS) / n,
      perSecond: n / seconds,
      ideal: (workers * PER_WORKER * 1000) / LATENCY_MS,
    };
  } finally {
    await client.end();
  }
}

const build = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
if (build.status !== 0) throw new Error("npm run build failed");
console.log(`CLI: ${BIN}`);
console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}`,
);
const server = startPostgres();
try {
  const results = [];
  for (const workers of [1, 2, 4]) results.push(await measure(server.url, workers));
  const one = results[0].perSecond;
  console.log(
    `| workers | total concurrency | trials | in-run time (s) | wall time (s) | CPU per trial, all processes with start-up (ms) | trials/s | of ideal | vs 1 worker |`,
  );
  console.log(`| --- | --- | --- | --- | --- | --- | --- | --- | --- |`);
  for (const r of results) {
    console.log(
      `| ${r.workers} | ${r.workers * PER_WORKER} | ${r.n} | ${r.seconds.toFixed(1)} | ${r.wallS.toFixed(1)} | ${r.cpuMsPerTrial.toFixed(2)} | ${r.perSecond.toFixed(1)} | ${((100 * r.perSecond) / r.ideal).toFixed(1)}% | ${(r.perSecond / one).toFixed(2)}x |`,
    );
  }
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
  );
} finally {
  server.stop();
}
