/**
 * Constructed agent studies: analysis rows with an agent block (tool calls, tokens, cost, flags)
 * and GAIA-like item metadata (level, attachment), for the agent analyses' tests.
 */
import type { AgentFacts } from "../../src/analysis/core/agent-facts.js";
import { type AnalysisRow, type AnalysisTable, clusterKey, type ItemFacts } from "../../src/analysis/index.js";
import type { AgentUnit } from "../../src/analysis/agents/units.js";
import { seededRandom } from "../../src/stats/index.js";

export function agentFacts(overrides: Partial<AgentFacts> = {}): AgentFacts {
  return {
    toolCalls: 0,
    toolErrors: 0,
    toolErrorMidTrajectory: false,
    recoveredAfterToolError: null,
    workingSeconds: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    realizedCostUsd: null,
    failureBucket: null,
    flags: [],
    ...overrides,
  };
}

export interface RowSpec {
  model: string;
  scaffold: string;
  item: string;
  attempt?: number;
  outcome: number | null;
  errored?: boolean;
  parseFailed?: boolean;
  agent?: Partial<AgentFacts>;
}

export const BENCHMARK = "gaia";

export function agentRow(spec: RowSpec): AnalysisRow {
  return {
    trialId: null,
    model: spec.model,
    benchmark: BENCHMARK,
    item: spec.item,
    cluster: clusterKey(BENCHMARK, spec.item),
    attempt: spec.attempt ?? 1,
    facets: { scaffold: spec.scaffold },
    outcome: spec.errored ? null : spec.outcome,
    parseFailed: spec.parseFailed ?? false,
    errored: spec.errored ?? false,
    simulated: true,
    agent: agentFacts(spec.agent),
  };
}

export function agentTable(rows: AnalysisRow[], scaffolds: string[], items?: ItemFacts): AnalysisTable {
  return {
    rows,
    facets: ["scaffold"],
    facetLevels: { scaffold: scaffolds },
    ...(items ? { items } : {}),
    source: {
      kind: "table",
      path: "(constructed)",
      runId: null,
      study: "agents",
      simulated: true,
      pending: 0,
      firstFinishedAt: null,
      scorer: null,
    },
  };
}

/** A unit as agentUnits makes it (for the estimators' tests). */
export function unit(fields: Partial<AgentUnit> & Pick<AgentUnit, "model" | "scaffold" | "cluster">): AgentUnit {
  const correct = fields.correct ?? false;
  return {
    level: "1",
    bucket: correct ? "correct" : "wrong",
    completed: true,
    correct,
    agent: agentFacts(),
    document: null,
    anyFile: null,
    ...fields,
  };
}

export interface PlantedAgentDesign {
  seed: number;
  questions: number;
  attempts: number;
  /** Log-odds per model and per scaffold, plus per (model, scaffold) interaction. */
  model: Record<string, number>;
  scaffold: Record<string, number>;
  interaction?: Record<string, number>;
  questionSd: number;
}

/** Correct/incorrect units from a logistic model with a random intercept per question. */
export function plantedAgentUnits(design: PlantedAgentDesign): AgentUnit[] {
  const random = seededRandom(design.seed);
  const units: AgentUnit[] = [];
  for (let q = 0; q < design.questions; q++) {
    const u = design.questionSd * random.normal();
    for (const [model, mEffect] of Object.entries(design.model))
      for (const [scaffold, sEffect] of Object.entries(design.scaffold))
        for (let a = 0; a < design.attempts; a++) {
          const eta = u + mEffect + sEffect + (design.interaction?.[`${model}:${scaffold}`] ?? 0);
          const correct = random.uniform() < 1 / (1 + Math.exp(-eta));
          units.push(unit({ model, scaffold, cluster: `q${q}`, correct, level: q % 2 === 0 ? "1" : "2" }));
        }
  }
  return units;
}

/**
 * Two GAIA levels of 15 questions each (every fifth with a spreadsheet attachment), two attempts
 * per cell, each cell's successes spread deterministically at its planted accuracy; cost rises
 * with the scaffold's position.
 */
export function leveledAgentTable(
  accuracy: Record<string, Record<string, number>>,
  scaffolds: string[],
): AnalysisTable {
  const rows: AnalysisRow[] = [];
  const items: ItemFacts = new Map();
  let k = 0;
  for (let q = 0; q < 30; q++) {
    const item = `t${q}`;
    items.set(clusterKey(BENCHMARK, item), { level: q < 15 ? 1 : 2, file_name: q % 5 === 0 ? "sheet.xlsx" : "" });
    for (const model of Object.keys(accuracy))
      for (const scaffold of scaffolds)
        for (let attempt = 1; attempt <= 2; attempt++) {
          const correct = ((k++ * 7919) % 100) / 100 < accuracy[model][scaffold];
          rows.push(
            agentRow({
              model,
              scaffold,
              item,
              attempt,
              outcome: correct ? 1 : 0,
              agent: { costUsd: 0.01 * (1 + scaffolds.indexOf(scaffold)), toolCalls: 3, outputTokens: 100 },
            }),
          );
        }
  }
  return agentTable(rows, scaffolds, items);
}
