// Seeded simulation of evaluation tables with planted effects, shared by the model tests.
import { type SeededRandom, seededRandom } from "../../src/stats/random.js";

export interface SimulatedTable {
  [column: string]: string[] | Float64Array;
  model: string[];
  config: string[];
  benchmark: string[];
  case_id: string[];
  outcome: Float64Array;
}

export interface Plan {
  models: string[];
  configs: string[];
  benchmarks: string[];
  casesPerBenchmark: number;
  intercept: number;
  /** Log-odds effects by level (reference levels absent = 0). */
  model?: Record<string, number>;
  config?: Record<string, number>;
  benchmark?: Record<string, number>;
  /** config x model interaction effects, keyed 'config|model'. */
  configByModel?: Record<string, number>;
  /** SD of a normal case-level random intercept (case-level correlation). */
  caseSd?: number;
  attempts?: number;
}

/** One row per case x model x config x attempt, outcome ~ Bernoulli(logistic(eta)). */
export function simulate(plan: Plan, random: SeededRandom | number): SimulatedTable {
  const rng = typeof random === "number" ? seededRandom(random) : random;
  const table: SimulatedTable = { model: [], config: [], benchmark: [], case_id: [], outcome: new Float64Array(0) };
  const outcome: number[] = [];
  for (const benchmark of plan.benchmarks) {
    for (let c = 0; c < plan.casesPerBenchmark; c++) {
      const caseId = `${benchmark}-${c}`;
      const caseEffect = (plan.caseSd ?? 0) * rng.normal();
      for (const model of plan.models) {
        for (const config of plan.configs) {
          const eta =
            plan.intercept +
            (plan.model?.[model] ?? 0) +
            (plan.config?.[config] ?? 0) +
            (plan.benchmark?.[benchmark] ?? 0) +
            (plan.configByModel?.[`${config}|${model}`] ?? 0) +
            caseEffect;
          for (let a = 0; a < (plan.attempts ?? 1); a++) {
            table.model.push(model);
            table.config.push(config);
            table.benchmark.push(benchmark);
            table.case_id.push(caseId);
            outcome.push(rng.uniform() < 1 / (1 + Math.exp(-eta)) ? 1 : 0);
          }
        }
      }
    }
  }
  table.outcome = Float64Array.from(outcome);
  return table;
}
