/**
 * npm run bench:hostile — what an endless or oversized input costs before it is refused.
 * Runs `parallax plan` (from source, through tsx) under /usr/bin/time -v on specs whose benchmark
 * source is an endless device (/dev/zero, /dev/urandom), a FIFO with no writer, and a regular
 * file one byte over `options.max_source_mb: 1`, plus `import inspect` on a FIFO, and reports each
 * command's exit code, wall time and peak RSS (the child's maximum resident set size). Each must
 * exit 2 in seconds, far below 500 MB. Prints Markdown.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const cli = join(repo, "src/cli/main.ts");
const TIME = "/usr/bin/time";
const LIMIT_MB = 500;

if (!existsSync(TIME)) {
  console.error(`${TIME} not found (GNU time, for the child's peak RSS)`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "parallax-bench-hostile-"));

function specWithSource(name: string, source: string, options = ""): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    `study: ${name}\nmodels:\n  - { id: m, provider: sim, model: weak }\n` +
      `benchmarks:\n  - id: b\n    loader: xstest\n    source: ${source}\n${options}` +
      "conditions:\n  facets:\n    format: [mc]\n",
  );
  return path;
}

interface Measured {
  label: string;
  status: number | null;
  seconds: number;
  peakMb: number;
  message: string;
}

function measure(label: string, args: string[]): Measured {
  const started = performance.now();
  const result = spawnSync(TIME, ["-v", process.execPath, "--import", "tsx", cli, ...args], {
    cwd: repo,
    encoding: "utf8",
    timeout: 120_000,
  });
  const seconds = (performance.now() - started) / 1000;
  const kib = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1] ?? Number.NaN);
  const message = result.stderr.split("\n").find((line) => line.startsWith("parallax:")) ?? "";
  const status = Number(/Exit status: (\d+)/.exec(result.stderr)?.[1] ?? result.status);
  return { label, status, seconds, peakMb: kib / 1024, message };
}

try {
  const fifo = join(dir, "source.fifo");
  execFileSync("mkfifo", [fifo]);
  const logFifo = join(dir, "log.eval");
  execFileSync("mkfifo", [logFifo]);
  const big = join(dir, "big.csv");
  writeFileSync(big, Buffer.alloc(1024 * 1024 + 1, "x"));
  const rows = [
    measure("plan, source: /dev/zero", ["plan", specWithSource("zero", "/dev/zero")]),
    measure("plan, source: /dev/urandom", ["plan", specWithSource("urandom", "/dev/urandom")]),
    measure("plan, source: a FIFO", ["plan", specWithSource("fifo", fifo)]),
    measure("plan, source 1 MiB + 1 byte, max_source_mb: 1", [
      "plan",
      specWithSource("big", big, "    options: { max_source_mb: 1 }\n"),
    ]),
    measure("import inspect on a FIFO", ["import", "inspect", logFifo, "--out", join(dir, "imported")]),
    measure("import inspect /dev/zero", ["import", "inspect", "/dev/zero", "--out", join(dir, "imported")]),
  ];
  console.log("| input | exit | wall s | peak RSS MB |\n| --- | ---: | ---: | ---: |");
  for (const row of rows) {
    console.log(`| ${row.label} | ${row.status} | ${row.seconds.toFixed(2)} | ${row.peakMb.toFixed(0)} |`);
  }
  const bad = rows.filter((row) => row.status !== 2 || !(row.peakMb < LIMIT_MB));
  for (const row of bad)
    console.error(`FAIL ${row.label}: exit ${row.status}, ${row.peakMb.toFixed(0)} MB: ${row.message}`);
  if (bad.length > 0) process.exitCode = 1;
  else console.log(`\nevery input refused with exit 2, peak RSS under ${LIMIT_MB} MB`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
