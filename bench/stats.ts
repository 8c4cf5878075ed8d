// Statistics benchmark (npm run bench:stats): paper-scale synthetic tables, timed in Parallax and,
// when Debian's python3-statsmodels is importable, in statsmodels/numpy on identical data (a temp
// CSV). Prints a Markdown table to paste into docs/PERFORMANCE.md. Single run, wall clock.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CholeskyDecomposition, Matrix } from "ml-matrix";
import { cholesky, choleskySolve, invertSpd } from "../src/stats/models/linalg.js";
import { anova, binomialRegression, seededRandom, termWaldTest } from "../src/stats/models/index.js";

const PYTHON = "/usr/bin/python3";
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const MODELS = ["claude", "deepseek", "gemini", "gpt", "llama", "mistral"];
const CONFIGS = ["direct", "map_reduce", "multi_agent", "react"];
const BENCHMARKS = ["bbq", "sycophancy", "truthfulqa", "xstest"];

// A type alias (not an interface) so it is assignable to the Table index signature.
type Data = {
  model: string[];
  config: string[];
  benchmark: string[];
  case_id: string[];
  outcome: Float64Array;
};

/** `totalCases` cases split evenly over the benchmarks; every case is seen by every model x config. */
function synthesize(totalCases: number, seed: number): Data {
  const random = seededRandom(seed);
  const configEffect: Record<string, number> = { direct: 0, map_reduce: -0.35, multi_agent: -0.02, react: -0.03 };
  const benchEffect: Record<string, number> = { bbq: 0.9, sycophancy: -0.8, truthfulqa: 0.5, xstest: 0.3 };
  const modelEffect = Object.fromEntries(MODELS.map((m, i) => [m, 0.1 * (i - 2.5)]));
  const data: Data = { model: [], config: [], benchmark: [], case_id: [], outcome: new Float64Array(0) };
  const outcome: number[] = [];
  for (let c = 0; c < totalCases; c++) {
    const benchmark = BENCHMARKS[c % BENCHMARKS.length];
    const caseEffect = 0.8 * random.normal();
    for (const model of MODELS) {
      for (const config of CONFIGS) {
        const gap = benchmark === "truthfulqa" && config === "map_reduce" ? -0.6 : 0;
        const eta = 0.4 + modelEffect[model] + configEffect[config] + benchEffect[benchmark] + gap + caseEffect;
        data.model.push(model);
        data.config.push(config);
        data.benchmark.push(benchmark);
        data.case_id.push(`${benchmark}-${c}`);
        outcome.push(random.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0);
      }
    }
  }
  data.outcome = Float64Array.from(outcome);
  return data;
}

const FORMULA = "outcome ~ config + model + benchmark + config:model + config:benchmark";
const ANOVA_TERMS = ["model", "config", "benchmark", "model:config", "model:benchmark", "config:benchmark"];

function time<T>(f: () => T): { seconds: number; value: T } {
  const start = performance.now();
  const value = f();
  return { seconds: (performance.now() - start) / 1000, value };
}

/** The bootstrap step on one thread, and spread over `threads` (the calling thread plus workers). */
async function bootstrapStep(
  data: Data,
  resamples: number,
): Promise<{ single: () => unknown; parallel: (threads: number) => Promise<unknown> } | undefined> {
  const path = join(repoRoot, "src/stats/bootstrap.ts");
  if (!existsSync(path)) return undefined;
  const boot = await import("../src/stats/bootstrap.js");
  const par = await import("../src/stats/parallel-bootstrap.js");
  const counts = () =>
    boot.clusteredCellCounts({ cluster: data.case_id, cell: data.config, outcome: data.outcome }, CONFIGS);
  const { statistic } = boot.pairwiseRiskDifferences(CONFIGS.length);
  return {
    single: () => boot.clusterBootstrap(counts(), statistic, { resamples, seed: 42 }),
    parallel: (threads) => par.clusterBootstrapParallel(counts(), statistic, { resamples, seed: 42, threads }),
  };
}

interface Row {
  table: string;
  step: string;
  parallax: number;
  statsmodels?: number;
}

async function runTable(name: string, data: Data, resamples: number): Promise<Row[]> {
  const rows: Row[] = [];
  const fit = time(() => {
    const f = binomialRegression(data, FORMULA, { factors: { config: { reference: "direct" } }, cluster: "case_id" });
    termWaldTest(f, "config");
    termWaldTest(f, "config:model");
    termWaldTest(f, "config:benchmark");
    return f;
  });
  rows.push({
    table: name,
    step: `cluster-robust logit, ${fit.value.nParameters} coefficients, 3 joint Wald tests`,
    parallax: fit.seconds,
  });
  const table = time(() => anova(data, { response: "outcome", terms: ANOVA_TERMS }));
  rows.push({ table: name, step: "Type II ANOVA (6 terms; Types I and III included)", parallax: table.seconds });
  const boot = await bootstrapStep(data, resamples);
  if (boot) {
    rows.push({
      table: name,
      step: `cluster bootstrap, ${resamples} resamples, 6 pairwise RDs, 1 thread`,
      parallax: time(boot.single).seconds,
    });
    await boot.parallel(2); // starts the worker pool: its start-up is not part of a bootstrap
    const started = performance.now();
    await boot.parallel(2);
    rows.push({
      table: name,
      step: `cluster bootstrap, ${resamples} resamples, 6 pairwise RDs, 2 threads`,
      parallax: (performance.now() - started) / 1000,
    });
  }
  return rows;
}

/** The vectorised numpy case-cluster bootstrap both Python scripts time (one definition). */
const NUMPY_BOOTSTRAP_FN = `
def numpy_bootstrap(df, resamples):
    configs = sorted(df.config.unique())
    ids, cl = np.unique(df.case_id.values, return_inverse=True)
    cf = pd.Categorical(df.config, categories=configs).codes
    succ = np.zeros((len(ids), len(configs))); trials = np.zeros_like(succ)
    np.add.at(succ, (cl, cf), df.outcome.values); np.add.at(trials, (cl, cf), 1)
    rng = np.random.default_rng(42)
    G = len(ids); pairs = [(i, j) for i in range(len(configs)) for j in range(i + 1, len(configs))]
    reps = []
    for start in range(0, resamples, 500):
        b = min(500, resamples - start)
        draws = rng.integers(0, G, size=(b, G))
        counts = np.apply_along_axis(np.bincount, 1, draws, minlength=G)
        p = (counts @ succ) / (counts @ trials)
        reps.append(np.stack([p[:, i] - p[:, j] for i, j in pairs], axis=1))
    reps = np.concatenate(reps)
    return np.percentile(reps, [2.5, 97.5], axis=0)
`;

const PYTHON_SCRIPT = `
import json, sys, time
import numpy as np, pandas as pd
import statsmodels.api as sm, statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm
${NUMPY_BOOTSTRAP_FN}
path, resamples = sys.argv[1], int(sys.argv[2])
df = pd.read_csv(path)
out = {}
t = time.perf_counter()
m = smf.glm("outcome ~ C(config, Treatment('direct')) + model + benchmark + C(config, Treatment('direct')):model + C(config, Treatment('direct')):benchmark",
            df, family=sm.families.Binomial()).fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(df.case_id)[0]})
names = list(m.params.index)
for key in ["config, Treatment('direct'))[T", ":model", ":benchmark"]:
    idx = [i for i, n in enumerate(names) if key in n and (key != "config, Treatment('direct'))[T" or ":" not in n)]
    L = np.zeros((len(idx), len(names))); L[range(len(idx)), idx] = 1
    m.wald_test(L, scalar=True)
out["fit"] = time.perf_counter() - t
t = time.perf_counter()
o = smf.ols("outcome ~ C(model) + C(config) + C(benchmark) + C(model):C(config) + C(model):C(benchmark) + C(config):C(benchmark)", df).fit()
anova_lm(o, typ=2)
out["anova"] = time.perf_counter() - t
t = time.perf_counter()
numpy_bootstrap(df, resamples)
out["bootstrap"] = time.perf_counter() - t
print(json.dumps(out))
`;

function statsmodelsAvailable(): boolean {
  const probe = spawnSync(PYTHON, ["-c", "import statsmodels, pandas, numpy"], { encoding: "utf8" });
  return probe.status === 0;
}

function writeCsv(path: string, data: Data): void {
  const lines = ["model,config,benchmark,case_id,outcome"];
  for (let i = 0; i < data.outcome.length; i++) {
    lines.push(`${data.model[i]},${data.config[i]},${data.benchmark[i]},${data.case_id[i]},${data.outcome[i]}`);
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

function runPython(dir: string, name: string, data: Data, resamples: number): Record<string, number> | undefined {
  const csv = join(dir, `${name}.csv`);
  const script = join(dir, "bench.py");
  writeCsv(csv, data);
  writeFileSync(script, PYTHON_SCRIPT);
  const run = spawnSync(PYTHON, [script, csv, String(resamples)], { encoding: "utf8", maxBuffer: 1 << 24 });
  if (run.status !== 0) {
    console.error(`statsmodels run failed: ${run.stderr.slice(-2000)}`);
    return undefined;
  }
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!);
}

function markdown(rows: Row[], totals: string[]): string {
  const fmt = (s: number | undefined) => (s === undefined ? "n/a" : `${s.toFixed(2)} s`);
  const lines = [
    "| table | step | Parallax | statsmodels / numpy | ratio (sm / Parallax) |",
    "| --- | --- | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.table} | ${r.step} | ${fmt(r.parallax)} | ${fmt(r.statsmodels)} | ${
          r.statsmodels === undefined ? "n/a" : `${(r.statsmodels / r.parallax).toFixed(1)}x`
        } |`,
    ),
  ];
  return `${lines.join("\n")}\n\n${totals.map((t) => `- ${t}`).join("\n")}\n`;
}

const DESCRIPTION =
  "Synthetic tables with the paper's shape (6 models x 4 configurations x 4 benchmarks, every case seen by every " +
  "model x configuration; outcome logistic with a normal case effect). Logit formula: " +
  `\`${FORMULA}\` with cluster-robust SEs by case; ANOVA on the 0/1 outcome with terms ${ANOVA_TERMS.join(", ")}; ` +
  "bootstrap: case-cluster resampling of all 6 pairwise risk differences between configurations " +
  "(src/stats/bootstrap.ts), numpy equivalent for the comparison.";

/**
 * The hand-written Cholesky (src/stats/models/linalg.ts) against ml-matrix's on what the fits
 * factor: X'WX of a dummy-coded design. k = 36 is the primary logit's coefficient count (one
 * Newton step = one factor + solve; the sandwich needs one inverse); 8 and 100 bracket it.
 * ml-matrix is timed including the conversion from and to the row-major Float64Array the fits
 * keep, since using it would need that conversion.
 */
function linalgComparison(): string {
  const random = seededRandom(7);
  const lines = [
    "| k | operation | hand-written (µs) | ml-matrix (µs) | ratio (ml-matrix / hand) |",
    "| ---: | --- | ---: | ---: | ---: |",
  ];
  for (const k of [8, 36, 100]) {
    const n = 4000;
    const x = Array.from({ length: n }, () =>
      Array.from({ length: k }, (_, j) => (j === 0 || random.uniform() < 0.3 ? 1 : 0)),
    );
    const a = new Float64Array(k * k);
    for (const row of x) {
      const w = 0.1 + 0.15 * random.uniform();
      for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) a[i * k + j] += w * row[i] * row[j];
    }
    const b = Float64Array.from({ length: k }, () => random.normal());
    const toMatrix = () => new Matrix(Array.from({ length: k }, (_, i) => Array.from(a.subarray(i * k, (i + 1) * k))));
    const ops = [
      {
        name: "factor + solve",
        hand: () => choleskySolve(cholesky(a, k), k, b),
        ml: () =>
          Float64Array.from(
            new CholeskyDecomposition(toMatrix()).solve(Matrix.columnVector(Array.from(b))).to1DArray(),
          ),
      },
      {
        name: "inverse",
        hand: () => invertSpd(a, k),
        ml: () => Float64Array.from(new CholeskyDecomposition(toMatrix()).solve(Matrix.eye(k)).to1DArray()),
      },
    ];
    for (const op of ops) {
      const theirs = op.ml();
      const diff = op.hand().reduce((m, v, i) => Math.max(m, Math.abs(v - theirs[i])), 0);
      if (diff > 1e-8) throw new Error(`ml-matrix and linalg.ts disagree on ${op.name} at k=${k} (${diff})`);
      const reps = Math.max(20, Math.round(2e6 / k ** 3));
      const perCall = (f: () => unknown) => {
        const started = performance.now();
        for (let r = 0; r < reps; r++) f();
        return ((performance.now() - started) * 1000) / reps;
      };
      // Interleaved rounds, median of each: the machine is shared, so load hits both alike.
      const hand: number[] = [];
      const ml: number[] = [];
      for (let round = 0; round < 7; round++) {
        hand.push(perCall(op.hand));
        ml.push(perCall(op.ml));
      }
      const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[3];
      const [h, m] = [median(hand), median(ml)];
      lines.push(`| ${k} | ${op.name} | ${h.toFixed(1)} | ${m.toFixed(1)} | ${(m / h).toFixed(1)}x |`);
    }
  }
  return lines.join("\n");
}

/**
 * The numpy reference of the bootstrap comparison, numpy alone (no pandas): the same reduction
 * and resampling as NUMPY_BOOTSTRAP_FN. It reads the table once, then times one bootstrap per
 * "go" line on stdin and answers with the seconds, so that its runs interleave with Parallax's.
 */
const NUMPY_ONLY_BOOTSTRAP = `
import sys, time
import numpy as np
def numpy_bootstrap(case_id, config, outcome, resamples):
    configs, cf = np.unique(config, return_inverse=True)
    ids, cl = np.unique(case_id, return_inverse=True)
    succ = np.zeros((len(ids), len(configs))); trials = np.zeros_like(succ)
    np.add.at(succ, (cl, cf), outcome); np.add.at(trials, (cl, cf), 1)
    rng = np.random.default_rng(42)
    G = len(ids); pairs = [(i, j) for i in range(len(configs)) for j in range(i + 1, len(configs))]
    reps = []
    for start in range(0, resamples, 500):
        b = min(500, resamples - start)
        draws = rng.integers(0, G, size=(b, G))
        counts = np.apply_along_axis(np.bincount, 1, draws, minlength=G)
        p = (counts @ succ) / (counts @ trials)
        reps.append(np.stack([p[:, i] - p[:, j] for i, j in pairs], axis=1))
    reps = np.concatenate(reps)
    return np.percentile(reps, [2.5, 97.5], axis=0)
path, resamples = sys.argv[1], int(sys.argv[2])
table = np.loadtxt(path, delimiter=",", skiprows=1, dtype=str)
case_id, config, outcome = table[:, 3], table[:, 1], table[:, 4].astype(float)
print("ready", flush=True)
for line in sys.stdin:
    t = time.perf_counter()
    numpy_bootstrap(case_id, config, outcome, resamples)
    print(time.perf_counter() - t, flush=True)
`;

/** The first python3 that imports numpy: the one on PATH, then Debian's. */
function numpyPython(): string | undefined {
  for (const python of ["python3", PYTHON]) {
    if (spawnSync(python, ["-c", "import numpy"]).status === 0) return python;
  }
  return undefined;
}

/** A numpy process serving timed bootstraps of one table, one per call of `next`. */
function numpyServer(python: string, csv: string, script: string, resamples: number) {
  // One BLAS thread: the comparison is one thread against one thread.
  const child = spawn(python, [script, csv, String(resamples)], {
    env: { ...process.env, OPENBLAS_NUM_THREADS: "1", OMP_NUM_THREADS: "1", MKL_NUM_THREADS: "1" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      const resolve = waiting.shift();
      if (resolve) resolve(line);
      else lines.push(line);
    }
  });
  const exited = new Promise<never>((_, reject) =>
    child.on("exit", (code) => reject(new Error(`numpy reference exited with ${code}`))),
  );
  exited.catch(() => {});
  const read = () =>
    Promise.race([
      new Promise<string>((resolve) => {
        const line = lines.shift();
        if (line !== undefined) resolve(line);
        else waiting.push(resolve);
      }),
      exited,
    ]);
  return {
    ready: read(),
    next: async () => {
      child.stdin.write("go\n");
      return Number(await read());
    },
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}

export interface BootstrapFigures {
  rows: number;
  clusters: number;
  resamples: number;
  /** Per interleaved round: seconds for Parallax on 1 thread, on 2 threads, and numpy. */
  one: number[];
  two: number[];
  numpy: number[];
}

const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/**
 * The bootstrap alone on one table, in one sitting: Parallax on 1 and 2 threads and the numpy
 * version, interleaved round by round (the machine is shared, so load hits all three alike).
 */
export async function bootstrapSitting(cases: number, rounds: number): Promise<BootstrapFigures> {
  const resamples = 10_000;
  const data = synthesize(cases, 1);
  const boot = (await bootstrapStep(data, resamples))!;
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-"));
  const csv = join(dir, "table.csv");
  const script = join(dir, "boot.py");
  writeCsv(csv, data);
  writeFileSync(script, NUMPY_ONLY_BOOTSTRAP);
  const python = numpyPython();
  const numpy = python ? numpyServer(python, csv, script, resamples) : undefined;
  const figures: BootstrapFigures = {
    rows: data.outcome.length,
    clusters: cases,
    resamples,
    one: [],
    two: [],
    numpy: [],
  };
  try {
    await numpy?.ready;
    await boot.parallel(2); // start the worker pool (and warm up) outside the timings
    boot.single();
    await numpy?.next();
    for (let r = 0; r < rounds; r++) {
      figures.one.push(time(boot.single).seconds);
      const started = performance.now();
      await boot.parallel(2);
      figures.two.push((performance.now() - started) / 1000);
      if (numpy) figures.numpy.push(await numpy.next());
    }
  } finally {
    numpy?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

function printBootstrap(f: BootstrapFigures): void {
  const fmt = (xs: number[]) =>
    xs.length ? `${median(xs).toFixed(3)} s (${xs.map((x) => x.toFixed(3)).join(", ")})` : "n/a";
  const ratio = (xs: number[]) => (f.numpy.length ? `${(median(f.numpy) / median(xs)).toFixed(2)}x` : "n/a");
  const pairRatio = f.numpy.length ? median(f.numpy.map((n, i) => n / f.one[i])) : Number.NaN;
  const speedup = median(f.one.map((o, i) => o / f.two[i]));
  console.log(
    `\nbootstrap, ${f.rows.toLocaleString("en-US")} rows, ${f.clusters.toLocaleString("en-US")} clusters, B = ${f.resamples}, ${f.one.length} interleaved rounds\n`,
  );
  console.log("| version | median (runs) | numpy / this |");
  console.log("| --- | ---: | ---: |");
  console.log(`| Parallax, 1 thread | ${fmt(f.one)} | ${ratio(f.one)} |`);
  console.log(`| Parallax, 2 threads | ${fmt(f.two)} | ${ratio(f.two)} |`);
  console.log(`| numpy (vectorised, 1 BLAS thread) | ${fmt(f.numpy)} | 1.00x |`);
  console.log(
    `\nmedian of the per-round ratios: numpy / Parallax 1 thread ${pairRatio.toFixed(2)}x; 1 thread / 2 threads ${speedup.toFixed(2)}x`,
  );
}

/** Both tables, each in its own interleaved sitting; prints Markdown, or JSON with --json. */
async function bootstrapComparison(rounds: number, json: boolean): Promise<void> {
  const load = loadavg();
  const sittings = [];
  for (const cases of [2617, 2617 * 4]) sittings.push(await bootstrapSitting(cases, rounds));
  const { closeBootstrapWorkers } = await import("../src/stats/parallel-bootstrap.js");
  await closeBootstrapWorkers();
  const after = loadavg();
  if (json) {
    process.stdout.write(`${JSON.stringify({ load: [load[0], after[0]], sittings })}\n`);
    return;
  }
  console.log(`load average (1 min) ${load[0].toFixed(2)} before, ${after[0].toFixed(2)} after`);
  for (const f of sittings) printBootstrap(f);
}

async function main(): Promise<void> {
  if (process.argv.includes("--linalg")) {
    console.log(linalgComparison());
    return;
  }
  const roundsAt = process.argv.indexOf("--bootstrap");
  if (roundsAt >= 0) {
    await bootstrapComparison(Number(process.argv[roundsAt + 1]) || 5, process.argv.includes("--json"));
    return;
  }
  const resamples = 10_000;
  const tables = [
    { name: "primary design, 62,808 rows", data: synthesize(2617, 1) },
    { name: "paper scale, 251,232 rows", data: synthesize(2617 * 4, 2) },
  ];
  const python = statsmodelsAvailable();
  const dir = mkdtempSync(join(tmpdir(), "parallax-bench-"));
  const rows: Row[] = [];
  try {
    for (const { name, data } of tables) {
      const ours = await runTable(name, data, resamples);
      const theirs = python ? runPython(dir, name.split(",")[0].replace(/\W+/g, "-"), data, resamples) : undefined;
      const keys = ["fit", "anova", "bootstrap", "bootstrap"];
      ours.forEach((r, i) => {
        r.statsmodels = theirs?.[keys[i]];
      });
      rows.push(...ours);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const primary = rows
    .filter((r) => r.table.startsWith("primary") && !r.step.endsWith("2 threads"))
    .reduce((s, r) => s + r.parallax, 0);
  const totals = [
    `whole primary analysis (the three steps on 62,808 rows, bootstrap on 1 thread): ${primary.toFixed(2)} s (target < 15 s)`,
    python
      ? "statsmodels: Debian python3-statsmodels via /usr/bin/python3, same data through a temp CSV; CSV parsing excluded, patsy design building included (as design building is in Parallax)."
      : "statsmodels not importable with /usr/bin/python3 (apt-get install -y python3-statsmodels): ratios not measured.",
    `one run, ${process.platform} ${process.arch}, Node ${process.version}; wall clock on a shared 2-core machine, so expect noise.`,
  ];
  const table = markdown(rows, totals);
  console.log(table);
  console.log(`\nCholesky: linalg.ts vs ml-matrix (medians of 7 interleaved rounds)\n\n${linalgComparison()}`);
  console.log(`\n${DESCRIPTION}`);
  const { closeBootstrapWorkers } = await import("../src/stats/parallel-bootstrap.js");
  await closeBootstrapWorkers();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
