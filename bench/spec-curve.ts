// Specification-curve benchmark (npm run bench:spec-curve): the default curve (the plan's
// default dimensions and 100 within-case permutations) on the golden obs_main.csv and on a
// paper-scale synthetic table (251,232 rows: 6 models x 4 configurations x 10,468 cases in 4
// benchmarks, 1 attempt), timed alone and as part of analyzeStudy. Prints medians of the runs.
//   --runs N       repetitions per case (default 3)
//   --golden PATH  the golden table (default ../shared/golden/obs_main.csv)
//   --skip-paper   only the golden table; --skip-golden only the paper-scale one
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadavg } from "node:os";
import { analyzeStudy, normalizePlan, resolvePlan, restrictRows, specificationCurve } from "../src/analysis/index.js";
import type { AnalysisRow, AnalysisTable } from "../src/analysis/core/table.js";
import { clusterKey, readTidyTable } from "../src/analysis/core/table.js";
import { RandomStream } from "../src/stats/index.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg("--runs") ?? 3);
const goldenPath = arg("--golden") ?? resolve(repoRoot, "../shared/golden/obs_main.csv");

/** The paper's shape: 6 models x 4 configurations, every case seen by every model x configuration. */
function paperTable(cases: number, seed: number): AnalysisTable {
  const random = RandomStream.fromSeed(seed);
  const models = ["claude", "deepseek", "gemini", "gpt", "llama", "mistral"];
  const configs = ["direct", "map_reduce", "multi_agent", "react"];
  const benchmarks = ["bbq", "sycophancy", "truthfulqa", "xstest"];
  const configEffect: Record<string, number> = { direct: 0, map_reduce: -0.35, multi_agent: -0.02, react: -0.03 };
  const rows: AnalysisRow[] = [];
  for (let c = 0; c < cases; c++) {
    const benchmark = benchmarks[c % benchmarks.length];
    const item = `${benchmark}-${c}`;
    const caseEffect = 0.8 * random.normal();
    models.forEach((model, m) => {
      for (const config of configs) {
        const eta = 0.6 + 0.1 * (m - 2.5) + configEffect[config] + caseEffect;
        const parseFailed = random.uniform() < 0.02;
        rows.push({
          trialId: null,
          model,
          benchmark,
          item,
          cluster: clusterKey(benchmark, item),
          attempt: 1,
          facets: { config },
          outcome: parseFailed ? 0 : random.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0,
          parseFailed,
          errored: false,
          simulated: true,
        });
      }
    });
  }
  return {
    rows,
    facets: ["config"],
    facetLevels: { config: configs },
    source: {
      kind: "table",
      path: "synthetic",
      runId: null,
      study: null,
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function timeCase(name: string, table: AnalysisTable, includeStudy: boolean) {
  const plan = normalizePlan({ bootstrap: { resamples: 2000 } });
  const resolved = resolvePlan(plan, table);
  const rows = restrictRows(table.rows, resolved.restrict).filter((r) =>
    resolved.levels.includes(r.facets[resolved.comparisonFacet]),
  );
  const curveTimes: number[] = [];
  const curveCpu: number[] = [];
  const studyTimes: number[] = [];
  let specs = 0;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const curve = await specificationCurve({
      rows,
      facet: resolved.comparisonFacet,
      reference: resolved.reference,
      contrast: "map_reduce",
      facets: table.facets,
      plan,
    });
    curveTimes.push((performance.now() - started) / 1000);
    const used = process.cpuUsage(cpu);
    curveCpu.push((used.user + used.system) / 1e6);
    specs = curve?.summary.n ?? 0;
    if (includeStudy) {
      const t = performance.now();
      await analyzeStudy(table, plan);
      studyTimes.push((performance.now() - t) / 1000);
    }
  }
  const fmt = (xs: number[]) =>
    xs.length ? `${median(xs).toFixed(2)} s (runs ${xs.map((x) => x.toFixed(2)).join(", ")})` : "not run";
  console.log(
    `| ${name} | ${table.rows.length.toLocaleString("en-US")} | ${specs} | ${fmt(curveTimes)} | ${fmt(curveCpu)} | ${fmt(studyTimes)} |`,
  );
}

console.log(
  `spec-curve bench, ${new Date().toISOString()}, ${process.platform} ${process.arch}, Node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}\n`,
);
console.log(
  "| table | rows | specifications | curve, wall (median) | curve, CPU time (median) | analyzeStudy, default plan, wall (median) |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
if (process.argv.includes("--skip-golden")) {
  // only the paper-scale table
} else if (existsSync(goldenPath)) await timeCase("golden obs_main.csv", readTidyTable(goldenPath), true);
else console.log(`(no golden table at ${goldenPath})`);
if (!process.argv.includes("--skip-paper")) await timeCase("paper scale (synthetic)", paperTable(10_468, 7), false);
console.log(
  `\nload average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
