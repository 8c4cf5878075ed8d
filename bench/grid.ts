// Configuration-grid benchmark (npm run bench:grid): SafetyRepro's whole 612-cell grid on the
// simulated panel, planned, run and analysed, each stage timed on its own.
//   The spec is examples/safety-repro.yaml (its five benchmarks, facets, exclusions, exemplar
//   pools and scorers) with its three served models replaced by three simulated ones carrying the
//   grid-quickstart's planted template / decoding / scoring-path effects and rank flip, and every
//   benchmark sampled to --items items (default 200): 3 x (4 x 48 + 12) = 612 configuration cells,
//   1,764 condition cells, 352,800 trials.
//   plan:    prepareStudy + summarisePlan (what `parallax plan` does: load, sample, expand, count)
//   run:     runStudy into a fresh SQLite study directory (what `parallax run` does)
//   analyse: analyzeDirectory with the spec's plan and the default 1,000-resample configuration
//            bootstrap (what `parallax analyze` does, every registered analysis), with each
//            analysis timed inside it; the grid analysis is the target (< 10 s).
// Needs ../shared/datasets (exits 2 without it).
//   --items N       items per benchmark (default 200)
//   --resamples N   configuration-bootstrap resamples (default 1000)
//   --keep          keep the study directory (printed)
//   --analyse DIR   time only the analyse stage, on an existing study directory (e.g. a --keep one)
//   --synthetic     time only the grid analysis, on a simulated 352,800-row table with planted
//                   effects (tests/analysis/grid-helpers.ts), --runs N times (default 5): the
//                   analysis at full size without running the trials first
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { analyzeDirectory, normalizePlan, registeredAnalyses } from "../src/analysis/index.js";
import { summarisePlan } from "../src/run/plan/plan.js";
import { runStudy } from "../src/run/execute/run-study.js";
import { openStore } from "../src/run/store/open.js";
import { prepareStudy } from "../src/run/prepare/study.js";
import { GRID_PANEL } from "./grid-panel.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const items = Number(arg("--items") ?? 200);
const resamples = Number(arg("--resamples") ?? 1000);
const keep = process.argv.includes("--keep");
const seconds = (start: number) => (performance.now() - start) / 1000;
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

const analyseOnly = arg("--analyse");
if (analyseOnly) {
  await analyseStudy(analyseOnly);
  process.exit(0);
}
if (process.argv.includes("--synthetic")) {
  await syntheticGridAnalysis(Number(arg("--runs") ?? 5));
  process.exit(0);
}

const repo = resolve(import.meta.dirname, "..");
const example = join(repo, "examples", "safety-repro.yaml");
if (!existsSync(resolve(repo, "..", "shared", "datasets"))) {
  console.error(`bench:grid needs ../shared/datasets (the example's benchmark files); not found`);
  process.exit(2);
}

/** examples/safety-repro.yaml on the simulated panel, its paths made absolute, `items` per benchmark. */
function benchSpec(): string {
  const spec = parse(readFileSync(example, "utf8"));
  const absolute = (p: string) => (isAbsolute(p) ? p : resolve(dirname(example), p));
  spec.study = "bench-grid";
  spec.models = GRID_PANEL;
  for (const b of spec.benchmarks) {
    b.source = absolute(b.source);
    b.sample = { n: items, seed: 42 };
    if (b.exemplars?.source) b.exemplars.source = absolute(b.exemplars.source);
  }
  spec.analysis = { comparison_facet: "template", grid: { resamples } };
  spec.execution = { concurrency: 16 };
  return stringify(spec);
}

const dir = mkdtempSync(join(tmpdir(), "parallax-bench-grid-"));
const specPath = join(dir, "study.yaml");
writeFileSync(specPath, benchSpec());
const outDir = join(dir, "run");
console.log(
  `bench:grid  ${new Date().toISOString()}  load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);

// 1. plan
let t = performance.now();
let cpu = process.cpuUsage();
const study = await prepareStudy(specPath);
const summary = summarisePlan(study);
const planTime = { wall: seconds(t), cpu: cpuSeconds(cpu) };
console.log(
  `plan:    ${planTime.wall.toFixed(1)} s wall, ${planTime.cpu.toFixed(1)} s CPU: ${summary.configurationCells} configuration cells, ${summary.cells} condition cells, ${summary.trials} trials (${summary.perBenchmark.map((b) => `${b.benchmark} |C| = ${b.configurations}`).join(", ")})`,
);

// 2. run
t = performance.now();
cpu = process.cpuUsage();
let done = 0;
const result = await runStudy({ specPath, outDir, env: {}, onTrialDone: () => void done++ });
const runTime = { wall: seconds(t), cpu: cpuSeconds(cpu) };
console.log(
  `run:     ${runTime.wall.toFixed(1)} s wall, ${runTime.cpu.toFixed(1)} s CPU: ${done} trials (${(done / runTime.wall).toFixed(0)} trials/s); load average ${loadavg()[0].toFixed(2)}; run ${result.runId}`,
);

// 3. analyse
try {
  await analyseStudy(outDir);
} finally {
  if (keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

/** The whole `analyze` of a study directory (its spec's plan), each registered analysis timed inside it. */
async function analyseStudy(outDir: string): Promise<void> {
  const perAnalysis = new Map<string, number>();
  for (const analysis of registeredAnalyses()) {
    const inner = analysis.run;
    if (!inner) continue;
    (analysis as { run: typeof inner }).run = async (ctx) => {
      const start = performance.now();
      try {
        return await inner.call(analysis, ctx);
      } finally {
        perAnalysis.set(analysis.name, (perAnalysis.get(analysis.name) ?? 0) + seconds(start));
      }
    };
  }
  const store = await openStore(outDir);
  try {
    const run = (await store.getRun())!;
    const t = performance.now();
    const cpu = process.cpuUsage();
    const outcome = await analyzeDirectory(outDir, store, run, { plan: normalizePlan(run.spec.analysis) });
    const analyseTime = { wall: seconds(t), cpu: cpuSeconds(cpu) };
    const grid = outcome.analysis.grid;
    if (!grid || "skipped" in grid) throw new Error(`grid analysis skipped: ${JSON.stringify(grid)}`);
    console.log(
      `analyse: ${analyseTime.wall.toFixed(1)} s wall, ${analyseTime.cpu.toFixed(1)} s CPU (whole analyze): ${outcome.analysis.counts.rows} rows, grid ${grid.cells.total} cells (${grid.cells.readable} readable), ${grid.bootstrap.length} bootstrap families x ${grid.bootstrap[0]?.resamples ?? 0} resamples`,
    );
    const slowest = [...perAnalysis].sort((a, b) => b[1] - a[1]);
    console.log(
      `  per analysis (wall): ${slowest
        .filter(([, s]) => s >= 0.05)
        .map(([name, s]) => `${name} ${s.toFixed(2)} s`)
        .join(", ")}`,
    );
    console.log(
      `  grid analysis: ${(perAnalysis.get("grid") ?? Number.NaN).toFixed(2)} s wall (target < 10 s); load average ${loadavg()[0].toFixed(2)}`,
    );
  } finally {
    await store.close();
  }
}

/** The grid analysis alone on a planted table of the paper's design (the bench before the run was added). */
async function syntheticGridAnalysis(runs: number): Promise<void> {
  const { gridAnalysis } = await import("../src/analysis/grid/grid-analysis.js");
  const { paperDesign, plantedGridTable } = await import("../tests/analysis/grid-helpers.js");
  const design = paperDesign(
    items,
    {
      truthfulqa: {
        base: 0.5,
        template: { T2: 0.05, T3: 0.1, T4: -0.15 },
        logprob: 0.2,
        modelTemplate: { m1: { T4: -0.3 } },
      },
      bbq: { base: 0.6, template: { T2: 0.1, T3: 0.15, T4: -0.2 }, decoding: { diverse: -0.05 } },
      toxigen: { base: 0.75, fewShot: { "3": 0.03, "5": 0.05 }, logprob: -0.1 },
      xstest: { base: 0.8, decoding: { moderate: -0.02, diverse: -0.08 }, modelTemplate: { m2: { T3: 0.2 } } },
      crows_pairs: { base: 0.3, logprobOnly: true, template: { T4: 0.05 } },
    },
    { m1: 0.05, m2: 0, m3: -0.05 },
  );
  design.seedShifts = [-0.04, -0.02, 0, 0.02, 0.04];
  const table = plantedGridTable(design);
  const plan = normalizePlan({ comparison_facet: "template", grid: { resamples } });
  const context = { table, plan, resolved: { comparisonFacet: "template" }, results: {} } as unknown as Parameters<
    typeof gridAnalysis
  >[0];
  console.log(
    `synthetic grid: ${table.rows.length} rows, ${resamples} resamples; load average ${loadavg()[0].toFixed(2)}`,
  );
  for (let k = 0; k < runs; k++) {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const result = gridAnalysis(context);
    if ("skipped" in result) throw new Error(result.skipped);
    console.log(
      `run ${k + 1}: ${seconds(start).toFixed(2)} s wall, ${cpuSeconds(cpu).toFixed(2)} s CPU (${result.cells.total} cells); load average ${loadavg()[0].toFixed(2)}`,
    );
  }
}
