// Configuration-grid benchmark (npm run bench:grid): the grid analysis of SafetyRepro's 612-cell
// design (3 models x 5 benchmarks x 200 items; |C| = 48 on four benchmarks and 12 on a log-prob-only
// CrowS-Pairs; stochastic decodings over 5 seeds, so 345,600 + 7,200 rows) built as a simulated
// table with planted template, decoding, scoring-path and model x template (rank-flip) effects,
// with the plan's default 1,000-resample configuration bootstrap. Prints min / median / max.
//   --runs N        repetitions (default 5)
//   --resamples N   configuration-bootstrap resamples (default 1000)
import { loadavg } from "node:os";
import { gridAnalysis } from "../src/analysis/analyses/grid.js";
import { type AnalysisContext, normalizePlan } from "../src/analysis/index.js";
import { paperDesign, plantedGridTable } from "../tests/analysis/grid-helpers.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg("--runs") ?? 5);
const resamples = Number(arg("--resamples") ?? 1000);

const design = paperDesign(
  200,
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
const context = { table, plan, resolved: { comparisonFacet: "template" }, results: {} } as unknown as AnalysisContext;

const cells = new Set(
  table.rows.map(
    (r) =>
      `${r.model}|${r.benchmark}|${r.facets.template}|${r.facets.decoding}|${r.facets.few_shot}|${r.facets.scoring_path}`,
  ),
).size;
console.log(
  `grid: ${table.rows.length} rows, ${cells} cells, ${resamples} resamples; load average ${loadavg()[0].toFixed(1)}`,
);
// Wall time, and the process's CPU time (user + system), which a machine shared with other
// work inflates far less than the wall clock.
const times: number[] = [];
const cpuTimes: number[] = [];
for (let k = 0; k < runs; k++) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const result = gridAnalysis(context);
  const used = process.cpuUsage(cpu);
  times.push((performance.now() - start) / 1000);
  cpuTimes.push((used.user + used.system) / 1e6);
  if ("skipped" in result) throw new Error(result.skipped);
  console.log(
    `run ${k + 1}: ${times[k].toFixed(2)} s wall, ${cpuTimes[k].toFixed(2)} s CPU (${result.cells.total} cells, ${result.bootstrap.length} bootstrap families)`,
  );
}
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0].toFixed(2)} s, median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} s, max ${sorted[sorted.length - 1].toFixed(2)} s`;
};
console.log(
  `grid analysis wall: ${summary(times)} (target < 10 s); CPU: ${summary(cpuTimes)}; load average ${loadavg()[0].toFixed(1)}`,
);
