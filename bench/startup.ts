/**
 * npm run bench:startup — how long the built CLI takes to start, per command.
 * Spawns the package's `bin` (the bundled CLI, dist/bundle/parallax.js) N times (default 15, or
 * `-- --runs N`) for `--version`, `plan examples/quickstart.yaml` and `status` on a quickstart
 * study directory (made once, untimed), interleaving the commands so machine load affects each alike. Reports the
 * median, min and max wall time and each command's median as a multiple of `--version`.
 * `-- --cli PATH` times another build (e.g. dist/cli/main.js, tsc's unbundled output, or an older
 * commit's). Prints Markdown.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const repo = resolve(import.meta.dirname, "..");
const bin = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { bin: { parallax: string } }).bin
  .parallax;
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "15" },
    cli: { type: "string", default: join(repo, bin) },
  },
});
const runs = Number(values.runs);
const cli = resolve(values.cli);
if (!existsSync(cli)) {
  console.error(`${cli} not found: run npm run build first`);
  process.exit(2);
}
const quickstart = join(repo, "examples/quickstart.yaml");

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

/** Runs the CLI once and returns its wall time in ms; a failing command stops the benchmark. */
function time(args: string[]): number {
  const started = performance.now();
  const child = spawnSync(command, [...prefix, ...args], { cwd: repo, encoding: "utf8" });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`parallax ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  return ms;
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
  const samples = commands.map(() => [] as number[]);
  time(["--version"]); // warm the file cache before timing
  for (let run = 0; run < runs; run++) {
    for (const [i, c] of commands.entries()) samples[i].push(time(c.args));
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const base = median(samples[0]);
  console.log(`${runs} runs each of ${cli}\n`);
  console.log("| command | median (s) | min (s) | max (s) | median / --version |");
  console.log("|---|---:|---:|---:|---:|");
  commands.forEach((c, i) => {
    const s = samples[i];
    const cells = [median(s), Math.min(...s), Math.max(...s)].map((ms) => (ms / 1000).toFixed(2));
    console.log(`| ${c.label} | ${cells.join(" | ")} | ${(median(s) / base).toFixed(1)}x |`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
