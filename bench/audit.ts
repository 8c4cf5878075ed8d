// Perturbation-audit benchmark (npm run bench:audit): 200 items x 3 families x 3 perturbations
// per item + the placebo family, each at the seeds 42, 123 and 2024, on the simulated panel (two
// respondents with planted perturbation sensitivity), run into a SQLite study directory and then
// analysed with 1,000 item-paired resamples. Times: the run, the F1 no-op audit over the stored
// bytes (the study-directory facts), the audit analysis alone (CSR, bootstrap, seed CV, gate,
// sweep) and the whole `analyze` (every registered analysis). `--budget SECONDS` exits 1 when the
// audit analysis is slower (target: 5 s). Results go in docs/PERFORMANCE.md.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { perturbationAudit } from "../src/analysis/audit/audit-analysis.js";
import { studyIntegrityFacts } from "../src/analysis/core/integrity-facts.js";
import { normalizePlan } from "../src/analysis/core/plan.js";
import type { AnalysisContext } from "../src/analysis/core/registry.js";
import { analyzeDirectory, loadScoredStudyTable } from "../src/analysis/index.js";
import { runStudy } from "../src/run/execute/run-study.js";
import { openStore } from "../src/run/store/open.js";

const ITEMS = 200;
const budgetIndex = process.argv.indexOf("--budget");
const budget = budgetIndex >= 0 ? Number(process.argv[budgetIndex + 1]) : Number.POSITIVE_INFINITY;

/** Arithmetic word problems written for the benchmark (no benchmark text). */
function items(): string {
  const lines: string[] = [];
  for (let k = 1; k <= ITEMS; k++) {
    const a = 3 + ((k * 7) % 57);
    const b = 4 + ((k * 13) % 53);
    const right = a + b;
    const options = [right, right + 1, right - 1, right + 10];
    const shift = k % 4;
    const shown = [...options.slice(shift), ...options.slice(0, shift)];
    lines.push(
      `      - { id: q${k}, stem: "Item ${k}: a shop sold ${a} apples in the morning and ${b} in the afternoon. How many apples did it sell that day?", options: [${shown.map((o) => `"${o}"`).join(", ")}], gold_index: ${shown.indexOf(right)} }`,
    );
  }
  return lines.join("\n");
}

function spec(): string {
  return `study: bench-audit
seed: 5
models:
  - { id: sim-a, provider: sim, model: medium, params: { temperature: 0 }, options: { surface_noise: 0.5, reword_noise: 0.05, construct_flip: 0.9 } }
  - { id: sim-b, provider: sim, model: strong, params: { temperature: 0 }, options: { surface_noise: 0.4, reword_noise: 0.1, construct_flip: 0.7 } }
benchmarks:
  - id: sums
    loader: inline
    items:
${items()}
conditions:
  facets:
    format: [mc]
    perturbation: [none, format, semantic, attribute, placebo]
analysis:
  comparison_facet: perturbation
  reference: { perturbation: none }
  hypotheses: { trend: false, subhypotheses: false, all_pairs: false, interactions: [] }
  specification_curve: false
  audit: { resamples: 1000, seeds: [42, 123, 2024] }
execution: { concurrency: 8, max_retries: 0 }
`;
}

const seconds = (from: number) => (performance.now() - from) / 1000;

const dir = mkdtempSync(join(tmpdir(), "parallax-bench-audit-"));
const specPath = join(dir, "audit.yaml");
writeFileSync(specPath, spec());
const outDir = join(dir, "out");
let started = performance.now();
await runStudy({ specPath, outDir, env: {} });
const runSeconds = seconds(started);
const store = await openStore(outDir);
try {
  const run = (await store.getRun())!;
  const counts = await store.countByStatus(run.id);
  started = performance.now();
  const facts = await studyIntegrityFacts(outDir, store, run);
  const factsSeconds = seconds(started);
  const table = await loadScoredStudyTable(store, run, outDir);
  const plan = normalizePlan(run.spec.analysis);
  const auditRuns: number[] = [];
  for (let r = 0; r < 3; r++) {
    started = performance.now();
    const result = perturbationAudit({ table, plan, integrityFacts: facts } as unknown as AnalysisContext);
    auditRuns.push(seconds(started));
    if ("skipped" in result) throw new Error(result.skipped);
  }
  started = performance.now();
  await analyzeDirectory(outDir, store, run);
  const analyzeSeconds = seconds(started);
  const best = Math.min(...auditRuns);
  console.log(
    `audit: ${ITEMS} items x (1 + 4 families x 3 slots x 3 seeds) conditions x 2 models = ${counts.finished} finished trials`,
  );
  console.log(`  run (sim panel, SQLite):            ${runSeconds.toFixed(1)} s`);
  console.log(`  F1 no-op audit + directory facts:   ${factsSeconds.toFixed(2)} s`);
  console.log(
    `  audit analysis (1,000 resamples):   best of 3 ${best.toFixed(2)} s (runs ${auditRuns.map((s) => s.toFixed(2)).join(", ")})`,
  );
  console.log(`  whole analyze (every analysis):     ${analyzeSeconds.toFixed(1)} s`);
  if (best > budget) {
    console.error(`the audit analysis is slower than the budget of ${budget} s`);
    process.exitCode = 1;
  }
} finally {
  await store.close();
}
