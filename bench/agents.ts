/**
 * The agent analyses at the GAIA comparison's size: 5 models x 3 scaffolds x 139 questions
 * (53 at level 1, 86 at level 2) x 3 attempts = 6,255 attempt-units, with some flagged and errored
 * units, through the registered analysis (three slices, 5,000 question-clustered resamples each,
 * six GLMM fits). Prints the wall time of the whole analysis and of its parts.
 *
 *   npm run bench:agents
 */
import { performance } from "node:perf_hooks";
import type { AgentFacts } from "../src/analysis/core/agent-facts.js";
import { sliceLevelEstimates } from "../src/analysis/agents/estimates.js";
import { scaffoldModelGlmm } from "../src/analysis/agents/glmm.js";
import { agentUnits, sliceUnits } from "../src/analysis/agents/units.js";
import { type AnalysisRow, analyzeStudy, clusterKey, type ItemFacts, normalizePlan } from "../src/analysis/index.js";
import { seededRandom } from "../src/stats/index.js";

const MODELS: Record<string, number> = { opus: 1.2, sonnet: 0.6, haiku: -0.5, gemini: 1.3, gpt: 1.4 };
const SCAFFOLDS: Record<string, number> = { s1: 0, s2: 0.4, s3: 0.2 };

function table() {
  const random = seededRandom(20260526);
  const rows: AnalysisRow[] = [];
  const items: ItemFacts = new Map();
  for (let q = 0; q < 139; q++) {
    const item = `task-${q}`;
    const level = q < 53 ? 1 : 2;
    items.set(clusterKey("gaia", item), {
      level,
      file_name: q % 9 === 0 ? "sheet.xlsx" : q % 13 === 0 ? "img.png" : "",
    });
    const difficulty = random.normal() + (level === 2 ? 0.5 : 0);
    for (const [model, m] of Object.entries(MODELS))
      for (const [scaffold, s] of Object.entries(SCAFFOLDS))
        for (let attempt = 1; attempt <= 3; attempt++) {
          const flagged = model !== "gemini" && model !== "gpt" && scaffold !== "s1" && random.uniform() < 0.05;
          const correct = !flagged && random.uniform() < 1 / (1 + Math.exp(-(m + s - difficulty)));
          const midError = random.uniform() < 0.2;
          const agent: AgentFacts = {
            toolCalls: Math.round(3 + 20 * random.uniform()),
            toolErrors: midError ? 1 : 0,
            toolErrorMidTrajectory: midError,
            recoveredAfterToolError: midError ? correct : null,
            workingSeconds: 30 + 200 * random.uniform(),
            inputTokens: Math.round(20_000 * random.uniform()),
            outputTokens: Math.round(4_000 * random.uniform()),
            cacheReadTokens: Math.round(100_000 * random.uniform()),
            cacheWriteTokens: Math.round(20_000 * random.uniform()),
            costUsd: 0.1 + 0.5 * random.uniform(),
            realizedCostUsd: null,
            failureBucket: flagged ? "provider_error" : null,
            flags: flagged ? ["provider_serialisation_bug"] : [],
          };
          rows.push({
            trialId: null,
            model,
            benchmark: "gaia",
            item,
            cluster: clusterKey("gaia", item),
            attempt,
            facets: { scaffold },
            outcome: flagged ? null : correct ? 1 : 0,
            parseFailed: false,
            errored: flagged,
            simulated: true,
            agent,
          });
        }
  }
  return { rows, items };
}

function time<T>(label: string, f: () => T): T {
  const start = performance.now();
  const value = f();
  console.log(`${label.padEnd(48)} ${((performance.now() - start) / 1000).toFixed(2)} s`);
  return value;
}

const { rows, items } = table();
const plan = normalizePlan({ reference: { scaffold: "s1" }, specification_curve: false }).agents;
console.log(`${rows.length} attempt-units, ${plan.resamples} resamples per slice and level`);
const { units } = agentUnits(rows, "scaffold", items, plan);
for (const slice of ["primary", "robust", "intersection"] as const) {
  const inSlice = sliceUnits(units, slice, plan);
  for (const level of ["1", "2"])
    time(`estimates, ${slice}, level ${level}`, () =>
      sliceLevelEstimates(
        inSlice.filter((u) => u.level === level),
        {
          models: Object.keys(MODELS),
          scaffolds: Object.keys(SCAFFOLDS),
          plan,
          h4: { treatment: "s3", control: "s1" },
        },
      ),
    );
  time(`GLMM baseline + interaction, ${slice}`, () => scaffoldModelGlmm(inSlice, { scaffold: "s1", model: "opus" }));
}
const start = performance.now();
await analyzeStudy(
  {
    rows,
    facets: ["scaffold"],
    facetLevels: { scaffold: Object.keys(SCAFFOLDS) },
    items,
    source: {
      kind: "table",
      path: "(bench)",
      runId: null,
      study: "bench",
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  },
  normalizePlan({ reference: { scaffold: "s1" }, specification_curve: false }),
);
console.log(
  `${"analyzeStudy (every registered analysis)".padEnd(48)} ${((performance.now() - start) / 1000).toFixed(2)} s`,
);
