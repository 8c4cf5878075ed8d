// npm run bench:profile — `parallax profile` on two simulated studies of the same models on shared
// items at the papers' scale, timed with its peak RSS.
//   S1, a scaffold comparison (ScaffoldSafety's primary design): the six simulated respondents of
//   examples/scaffold-safety-sim.yaml on TruthfulQA MC1 (all 817 items, as the paper) and BBQ
//   (800 items, as the paper), scaffold direct / react / critic / map_reduce, MC format.
//   S2, a configuration grid (SafetyRepro's harness axes): the same models on the same samples,
//   template T1-T4 x decoding greedy / moderate (seed 1).
//   1,617 shared items: S1 38,808 trials, S2 77,616 trials (with --fraction 1).
// Each spec is planned first (prepareStudy + summarisePlan, what `parallax plan` prints) and refused
// above --max-trials; then run in process (runStudy, what `parallax run` does, untimed for the
// figure but reported); then `parallax profile S1 S2 --json` is timed --runs times in child
// processes under /usr/bin/time (wall and CPU seconds, maximum RSS), and a table is printed (Markdown).
// Needs ../shared/datasets (exits 2 without it).
//   --fraction F     share of the paper's samples per benchmark (default 1: 817 + 800 items)
//   --runs N         profile runs (default 3): the median and the range
//   --max-trials N   refuse a plan larger than this (default 150000)
//   --cli PATH       the CLI to time (default dist/bundle/parallax.js when built, else src/cli/main.ts via tsx)
//   --studies A,B    time profile on two existing study directories (e.g. kept ones) instead
//   --keep           keep the study directories (printed)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { parse, stringify } from "yaml";
import { summarisePlan } from "../src/run/plan/plan.js";
import { runStudy } from "../src/run/execute/run-study.js";
import { prepareStudy } from "../src/run/prepare/study.js";

const repo = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    fraction: { type: "string", default: "1" },
    runs: { type: "string", default: "3" },
    "max-trials": { type: "string", default: "150000" },
    cli: { type: "string" },
    studies: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const fraction = Number(values.fraction);
const runs = Number(values.runs);
const maxTrials = Number(values["max-trials"]);
if (!(fraction > 0 && fraction <= 1) || !(runs >= 1) || !(maxTrials > 0)) {
  console.error("bench:profile: --fraction in (0, 1], --runs >= 1, --max-trials > 0");
  process.exit(2);
}

/** The paper's sample per benchmark: TruthfulQA all 817, BBQ 800 (ScaffoldSafety's primary family). */
const PAPER_ITEMS = { truthfulqa: 817, bbq: 800 } as const;
const example = join(repo, "examples", "scaffold-safety-sim.yaml");

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const seconds = (start: number) => (performance.now() - start) / 1000;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The two specs: the example's models and benchmark sources, the same samples, each study's own axes. */
function specs(): { s1: string; s2: string; items: number } {
  const base = parse(readFileSync(example, "utf8"));
  const absolute = (p: string) => (isAbsolute(p) ? p : resolve(dirname(example), p));
  // Temperature costs every model a little, so the grid's decoding axis has something to find.
  const models = base.models.map((m: { options?: object }) => ({
    ...m,
    options: { ...m.options, temperature_effect: -1.2 },
  }));
  const benchmarks = Object.entries(PAPER_ITEMS).map(([id, n]) => {
    const b = base.benchmarks.find((x: { id: string }) => x.id === id);
    return { id, loader: b.loader, source: absolute(b.source), sample: { n: Math.round(n * fraction), seed: 42 } };
  });
  const common = { seed: 42, models, benchmarks, attempts: 1, execution: { concurrency: 16 } };
  const s1 = {
    study: "bench-profile-scaffolds",
    ...common,
    conditions: { facets: { scaffold: ["direct", "react", "critic", "map_reduce"], format: ["mc"] } },
    analysis: { comparison_facet: "scaffold", reference: { scaffold: "direct" } },
  };
  const s2 = {
    study: "bench-profile-grid",
    ...common,
    conditions: {
      facets: { template: ["T1", "T2", "T3", "T4"], decoding: ["greedy", { name: "moderate", seeds: [1] }] },
    },
    scoring: { default: "mc_last_answer" },
    analysis: { comparison_facet: "template" },
  };
  const items = benchmarks.reduce((t, b) => t + b.sample.n, 0);
  return { s1: stringify(s1), s2: stringify(s2), items };
}

/** Plans, refuses above --max-trials, runs; returns the study directory. */
async function buildStudy(dir: string, name: string, yaml: string): Promise<{ out: string; trials: number }> {
  const specPath = join(dir, `${name}.yaml`);
  writeFileSync(specPath, yaml);
  const summary = summarisePlan(await prepareStudy(specPath));
  console.log(
    `plan ${name}: ${summary.models} models x ${summary.conditions} conditions x ${summary.items} items = ${summary.trials} trials`,
  );
  if (summary.trials > maxTrials) {
    console.error(`bench:profile: ${name} plans ${summary.trials} trials, above --max-trials ${maxTrials}`);
    process.exit(2);
  }
  const out = join(dir, name);
  const start = performance.now();
  let done = 0;
  await runStudy({ specPath, outDir: out, env: {}, onTrialDone: () => void done++ });
  const wall = seconds(start);
  console.log(
    `run ${name}: ${done} trials in ${wall.toFixed(1)} s (${(done / wall).toFixed(0)} trials/s); load ${load()}`,
  );
  return { out, trials: done };
}

interface Timed {
  wall: number;
  /** User + system CPU seconds: what the process used, less sensitive to the machine's load than wall time. */
  cpu: number;
  rssMiB: number;
  stdout: string;
}

/** One `parallax profile A B --json` in a child process under /usr/bin/time: wall seconds and maximum RSS. */
function timeProfile(cli: string[], studies: string[]): Timed {
  const child = spawnSync("/usr/bin/time", ["-f", "TIME %e %U %S %M", ...cli, "profile", ...studies, "--json"], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const match = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(child.stderr);
  if (child.status !== 0 || !match) throw new Error(`profile failed (${child.status}): ${child.stderr.slice(-500)}`);
  return {
    wall: Number(match[1]),
    cpu: Number(match[2]) + Number(match[3]),
    rssMiB: Number(match[4]) / 1024,
    stdout: child.stdout,
  };
}

/** A study directory's finished and errored trials (what profile reads), straight from its SQLite store. */
function storedTrials(study: string): number {
  const db = new Database(join(study, "parallax.db"), { readonly: true });
  try {
    return db.prepare("select count(*) from trials where status in ('finished', 'errored')").pluck().get() as number;
  } finally {
    db.close();
  }
}

function cliCommand(): string[] {
  if (values.cli) return [process.execPath, ...(values.cli.endsWith(".ts") ? ["--import", "tsx"] : []), values.cli];
  const bundle = join(repo, "dist/bundle/parallax.js");
  if (existsSync(bundle)) return [process.execPath, bundle];
  return [process.execPath, "--import", "tsx", join(repo, "src/cli/main.ts")];
}

if (!existsSync("/usr/bin/time")) {
  console.error("bench:profile needs /usr/bin/time (GNU time) for the peak RSS");
  process.exit(2);
}
console.log(`bench:profile  ${new Date().toISOString()}  load average ${load()}`);
let studies: string[];
let trials: number[] = [];
let dir: string | undefined;
if (values.studies) {
  studies = values.studies.split(",");
  trials = studies.map((study) => storedTrials(study));
} else {
  if (!existsSync(resolve(repo, "..", "shared", "datasets"))) {
    console.error("bench:profile needs ../shared/datasets (the example's benchmark files); not found");
    process.exit(2);
  }
  dir = mkdtempSync(join(tmpdir(), "parallax-bench-profile-"));
  const { s1, s2, items } = specs();
  console.log(`fraction ${fraction} of the paper's samples: ${items} items per study`);
  const built = [await buildStudy(dir, "s1-scaffolds", s1), await buildStudy(dir, "s2-grid", s2)];
  studies = built.map((b) => b.out);
  trials = built.map((b) => b.trials);
}

try {
  const cli = cliCommand();
  const timed: Timed[] = [];
  for (let i = 0; i < runs; i++) {
    const loadBefore = loadavg()[0];
    timed.push(timeProfile(cli, studies));
    console.log(
      `profile run ${i + 1}: ${timed[i].wall.toFixed(2)} s wall, ${timed[i].cpu.toFixed(2)} s CPU, max RSS ${timed[i].rssMiB.toFixed(0)} MiB (load ${loadBefore.toFixed(2)})`,
    );
  }
  const profile = JSON.parse(timed[0].stdout) as {
    models: string[];
    items: number;
    axes: { name: string }[];
    conditions: string[];
    headline: string;
  };
  const walls = timed.map((t) => t.wall);
  const cpus = timed.map((t) => t.cpu);
  const rss = timed.map((t) => t.rssMiB);
  const range = (xs: number[], digits: number) =>
    `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
  console.log("");
  console.log(
    `| studies | trials | shared models | shared items | axes | conditions | profile wall s | profile CPU s | max RSS MiB |`,
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  console.log(
    `| ${studies.length} | ${trials.length ? trials.map((t) => t.toLocaleString("en")).join(" + ") : "-"} | ${profile.models.length} | ${profile.items} | ${profile.axes.map((a) => a.name).join(", ")} | ${profile.conditions.length} | ${range(walls, 2)} | ${range(cpus, 2)} | ${range(rss, 0)} |`,
  );
  console.log("");
  console.log(`median (min-max) of ${runs} runs; CLI ${cli.slice(1).join(" ")}; load average after ${load()}`);
  console.log(`headline: ${profile.headline}`);
} finally {
  if (dir && values.keep) console.log(`kept ${dir}`);
  else if (dir) rmSync(dir, { recursive: true, force: true });
}
