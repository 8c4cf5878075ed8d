/**
 * npm run bench:startup — how long the built CLI takes to start, per command.
 * Spawns the package's `bin` (the bundled CLI, dist/bundle/parallax.js) N times (default 15, or
 * `-- --runs N`) for `--version`, `plan examples/quickstart.yaml` and `status` on a quickstart
 * study directory (made once, untimed), interleaving the commands so machine load affects each alike. With `-- --worker URL`
 * (a PostgreSQL store) it also times `worker URL` joining a run whose trials are all finished: a
 * worker's start-up, connection and first claim, then exit. Reports the median, min and max wall
 * time, the median CPU time (user + system, from /usr/bin/time) and each command's median as a
 * multiple of `--version`.
 *
 * `-- --cli PATH` times another build (e.g. dist/cli/main.js, tsc's unbundled output, or an
 * older commit's). Prints Markdown.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const repo = resolve(import.meta.dirname, "..");
const bin = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { bin: { parallax: string } }).bin
  .parallax;
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    cli: { type: "string", default: join(repo, bin) },
    worker: { type: "string" },
  },
});
const runs = Number(values.runs);
const cli = resolve(values.cli);
if (!existsSync(cli)) {
  console.error(`${cli} not found: run npm run build first`);
  process.exit(2);
}
const quickstart = join(repo, "examples/quickstart.yaml");
const timeCommand = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** An executable CLI runs as `bin` does, through its shebang (with the Node flags it names). */
function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
const [command, prefix] = isExecutable(cli) ? [cli, []] : [process.execPath, [cli]];

/** Runs the CLI once: wall time and CPU time (user + system) in ms; a failing command stops the benchmark. */
function time(args: string[]): { wall: number; cpu: number } {
  const [file, argv] = timeCommand
    ? [timeCommand, ["-f", "%U %S", command, ...prefix, ...args]]
    : [command, [...prefix, ...args]];
  const started = performance.now();
  const child = spawnSync(file, argv, { cwd: repo, encoding: "utf8" });
  const wall = performance.now() - started;
  if (child.status !== 0) throw new Error(`parallax ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  const times = timeCommand ? child.stderr.trim().split("\n").at(-1)!.split(" ").map(Number) : [Number.NaN, 0];
  return { wall, cpu: 1000 * (times[0] + times[1]) };
}

/** A run in the worker's store whose trials are all finished: a worker joins, claims nothing and exits. */
function idleRun(dir: string, url: string): string {
  const store = new URL(url);
  store.searchParams.set("schema", `bench_startup_${process.pid}`);
  const spec = join(dir, "idle.yaml");
  const items = Array.from(
    { length: 8 },
    (_, i) =>
      `      - { id: q${i}, stem: "Start-up question ${i}?", options: [a${i}, b${i}, c${i}], gold_index: ${i % 3} }`,
  );
  writeFileSync(
    spec,
    `study: startup-worker\nmodels:\n  - { id: sim-a, provider: sim, model: medium }\nbenchmarks:\n  - id: bench\n    loader: inline\n    items:\n${items.join("\n")}\nconditions:\n  facets:\n    format: [mc]\nexecution:\n  cache: false\n`,
  );
  time(["run", spec, "--out", join(dir, "idle"), "--store", store.toString()]);
  return store.toString();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const dir = mkdtempSync(join(tmpdir(), "parallax-startup-"));
const studyDir = join(dir, "quickstart");
try {
  time(["run", quickstart, "--out", studyDir]);
  const commands: { label: string; args: string[] }[] = [
    { label: "--version", args: ["--version"] },
    { label: "plan examples/quickstart.yaml", args: ["plan", quickstart] },
    { label: "status <quickstart run>", args: ["status", studyDir] },
  ];
  if (values.worker) commands.push({ label: "worker <idle run>", args: ["worker", idleRun(dir, values.worker)] });
  const samples = commands.map(() => [] as { wall: number; cpu: number }[]);
  time(["--version"]); // warm the file cache before timing
  for (let run = 0; run < runs; run++) {
    for (const [i, c] of commands.entries()) samples[i].push(time(c.args));
  }
  const base = median(samples[0].map((s) => s.wall));
  const baseCpu = median(samples[0].map((s) => s.cpu));
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
  console.log(`${runs} runs each of ${cli}; load average ${load}\n`);
  console.log("| command | median (s) | min (s) | max (s) | median / --version | CPU median (s) | CPU / --version |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  commands.forEach((c, i) => {
    const walls = samples[i].map((s) => s.wall);
    const cpu = median(samples[i].map((s) => s.cpu));
    const cells = [median(walls), Math.min(...walls), Math.max(...walls)].map((ms) => (ms / 1000).toFixed(2));
    console.log(
      `| ${c.label} | ${cells.join(" | ")} | ${(median(walls) / base).toFixed(1)}x | ${(cpu / 1000).toFixed(2)} | ${(cpu / baseCpu).toFixed(1)}x |`,
    );
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
