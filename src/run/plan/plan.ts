/**
 * Expands a prepared study into trials (model x condition x item x attempt) and estimates
 * its calls and cost without calling any model.
 */
import type { Condition } from "../../contracts/condition.js";
import type { Item } from "../../contracts/item.js";
import { datasetLoaders } from "../../datasets/registry.js";
import { defaultScorerName, scorers } from "../../scoring/registry.js";
import type { AnyScorer } from "../../scoring/types.js";
import type { Capability } from "../../contracts/provider.js";
import type { PlannedTrial } from "../../contracts/trial.js";
import { InputError } from "../../core/errors.js";
import { conditionHash, trialId } from "../../core/hash.js";
import { estimateTokens } from "../../core/tokens.js";
import { renderTrialTask } from "../../facets/render.js";
import { DEFAULT_SCAFFOLD, scaffoldOf } from "../../facets/scaffold.js";
import { scoringPathOf } from "../../facets/scoring-path.js";
import { batchPrice, costUsd, modelPrice } from "../../models/pricing.js";
import { renderTask } from "../../scaffolds/prompt.js";
import { DEFAULT_MAX_TOKENS } from "../../scaffolds/settings.js";
import { conditionLabel, configurationOf } from "../prepare/conditions.js";
import { loaderOf } from "../score/choose.js";
import { assignJudges, judgeMaxTokens } from "../score/judges.js";
import { expectedJudgeCalls, judgedAtRunTime } from "../score/judged-trials.js";
import type { PreparedStudy } from "../prepare/study.js";

export { DEFAULT_SCAFFOLD } from "../../facets/scaffold.js";
export { SCORING_PATHS } from "../../facets/scoring-path.js";

/** A stable run id: the study name and the hashes of what defines its trials. */
export function runIdFor(study: PreparedStudy): string {
  return `${study.spec.study}-${study.specHash.slice(0, 8)}${study.manifestHash.slice(0, 4)}`;
}

/** Yields every planned trial in a fixed order (generator: a 100k-trial plan is never held whole). */
export function* planTrials(study: PreparedStudy, runId: string): Generator<PlannedTrial> {
  const hashed = study.conditions.map((condition) => ({ condition, hash: conditionHash(condition) }));
  for (const model of study.spec.models) {
    for (const { condition, hash } of hashed) {
      for (const [benchmarkId, items] of study.items) {
        // An exclude entry naming the benchmark (CrowS-Pairs: log-prob only) leaves it out here.
        if (!conditionsOf(study, benchmarkId).includes(condition)) continue;
        for (const itemId of cellItemIds(study, { modelId: model.id, condition, benchmarkId }, items)) {
          for (let attempt = 1; attempt <= study.spec.attempts; attempt++) {
            const coords = { modelId: model.id, conditionHash: hash, benchmarkId, itemId, attempt };
            yield { id: trialId(coords), runId, ...coords, condition };
          }
        }
      }
    }
  }
}

/**
 * The item ids one (model, condition, benchmark) cell runs, in the benchmark's order: every item,
 * or with families the union of the items of the families that include the cell.
 */
export function cellItemIds(
  study: PreparedStudy,
  cellOf: { modelId: string; condition: Condition; benchmarkId: string },
  items: ReadonlyMap<string, Item> = study.items.get(cellOf.benchmarkId) ?? new Map(),
): Iterable<string> {
  const { modelId, condition, benchmarkId } = cellOf;
  if (!study.coverage) return items.keys();
  const cell = study.coverage.get(modelId)?.get(condition)?.get(benchmarkId);
  if (!cell) return [];
  return [...items.keys()].filter((id) => cell.has(id));
}

/** The number of items a cell runs (see cellItemIds). */
export function cellSize(study: PreparedStudy, modelId: string, condition: Condition, benchmarkId: string): number {
  if (!study.coverage) return study.items.get(benchmarkId)?.size ?? 0;
  return study.coverage.get(modelId)?.get(condition)?.get(benchmarkId)?.size ?? 0;
}

/** The conditions a benchmark runs (the grid minus the exclude entries naming it). */
export function conditionsOf(study: PreparedStudy, benchmarkId: string): Condition[] {
  return study.benchmarkConditions.get(benchmarkId) ?? study.conditions;
}

/** One model's trials: each benchmark's items under the conditions it runs (with families, the cells' items). */
function modelTrials(study: PreparedStudy, modelId: string): number {
  let cells = 0;
  for (const benchmarkId of study.items.keys())
    for (const condition of conditionsOf(study, benchmarkId)) cells += cellSize(study, modelId, condition, benchmarkId);
  return cells * study.spec.attempts;
}

/** The trials planTrials yields, counted without yielding them (cheap: one sum per cell). */
export function plannedTrialCount(study: PreparedStudy): number {
  return study.spec.models.reduce((sum, model) => sum + modelTrials(study, model.id), 0);
}

export interface PlanSummary {
  models: number;
  conditions: number;
  items: number;
  attempts: number;
  cells: number;
  trials: number;
  estimatedCalls: number;
  /**
   * Upper-bound cost: estimated prompt tokens and, per call, the max_tokens it is sent with (the
   * scaffold setting, else the model's, else the scaffold kind's default; a judge's own) at the
   * known prices.
   */
  estimatedCostUsd: number;
  /** The same estimate in batch mode: models with a batch API at their batch price (judges stay synchronous). */
  estimatedBatchCostUsd: number;
  modelsWithoutPrice: string[];
  perModel: { model: string; trials: number; calls: number; costUsd: number | null; batchCostUsd: number | null }[];
  /**
   * Per benchmark: its conditions, and its configurations |C_b| (conditions with the decoding
   * seeds of one setting counted once: SafetyRepro's "shared configurations").
   */
  perBenchmark: { benchmark: string; conditions: number; configurations: number }[];
  /** model x benchmark x configuration cells (SafetyRepro's "valid result cells"). */
  configurationCells: number;
  /**
   * With families only: each family's design and trials, in declared order. A trial two families
   * share counts in both here and once in `trials`.
   */
  families?: FamilyPlan[];
}

export interface FamilyPlan {
  name: string;
  role: "primary" | "secondary" | "control";
  models: string[];
  /** Per benchmark: its items, and the conditions and configurations the family runs on it. */
  benchmarks: { benchmark: string; items: number; conditions: number; configurations: number }[];
  /** The conditions the family runs on any of its benchmarks. */
  conditions: string[];
  trials: number;
  /** Of `trials`, those another family also includes (run once). */
  sharedTrials: number;
}

/**
 * Each family's trials and how many of them another family shares (see PlanSummary.families).
 * A trial is a (model, condition, benchmark) cell and an item. The cells a given set of families
 * runs all share their items' owner counts, so those are counted once per benchmark and set of
 * families, not per trial: planning holds no record per trial at any size.
 */
export function familyPlans(study: PreparedStudy): FamilyPlan[] {
  const families = study.families ?? [];
  const attempts = study.spec.attempts;
  type Family = (typeof families)[number];
  const runs = (family: Family, model: string, benchmarkId: string, condition: Condition) =>
    family.items.has(benchmarkId) &&
    family.models.includes(model) &&
    (family.benchmarkConditions.get(benchmarkId) ?? []).includes(condition);
  // Of a family's items on a benchmark, those another family running the same cells also has,
  // per benchmark and set of families that run a cell (their indices).
  const sharedItems = new Map<string, number>();
  const sharedOf = (index: number, benchmarkId: string, owners: number[]): number => {
    const key = JSON.stringify([index, benchmarkId, owners]);
    let shared = sharedItems.get(key);
    if (shared === undefined) {
      const others = owners.filter((k) => k !== index).map((k) => new Set(families[k].items.get(benchmarkId)));
      shared = (families[index].items.get(benchmarkId) ?? []).filter((id) => others.some((o) => o.has(id))).length;
      sharedItems.set(key, shared);
    }
    return shared;
  };
  return families.map((family, index) => {
    let trials = 0;
    let shared = 0;
    for (const model of family.models)
      for (const [benchmarkId, ids] of family.items)
        for (const condition of family.benchmarkConditions.get(benchmarkId) ?? []) {
          trials += ids.length;
          const owners = families.flatMap((other, k) => (runs(other, model, benchmarkId, condition) ? [k] : []));
          if (owners.length > 1) shared += sharedOf(index, benchmarkId, owners);
        }
    return {
      name: family.name,
      role: family.role,
      models: family.models,
      benchmarks: [...family.items].map(([benchmark, ids]) => {
        const conditions = family.benchmarkConditions.get(benchmark) ?? [];
        const configurations = new Set(conditions.map((c) => conditionHash(configurationOf(c)))).size;
        return { benchmark, items: ids.length, conditions: conditions.length, configurations };
      }),
      conditions: family.conditions
        .filter((c) => [...family.benchmarkConditions.values()].some((own) => own.includes(c)))
        .map(conditionLabel),
      trials: trials * attempts,
      sharedTrials: shared * attempts,
    };
  });
}

/** A judge call's own words (rubric, instructions), for the estimate. */
const JUDGE_PROMPT_TOKENS = 200;

export function summarisePlan(study: PreparedStudy): PlanSummary {
  const itemCount = [...study.items.values()].reduce((sum, byId) => sum + byId.size, 0);
  const perBenchmark = [...study.items.keys()].map((benchmark) => {
    // With families: the conditions some family runs on the benchmark.
    const conditions = conditionsOf(study, benchmark).filter(
      (c) => !study.coverage || study.spec.models.some((m) => cellSize(study, m.id, c, benchmark) > 0),
    );
    const configurations = new Set(conditions.map((c) => conditionHash(configurationOf(c)))).size;
    return { benchmark, conditions: conditions.length, configurations };
  });
  const { attempts } = study.spec;
  const workload = conditionWorkloads(study);
  const judges = assignJudges(study.spec);
  const judgeCallsPerTrial = expectedJudgeCalls(study.spec);
  const perModel = study.spec.models.map((model) => {
    const price = modelPrice(model, study.spec.prices);
    const priceInBatch = batchPrice(model, study.spec.prices);
    // Judge sub-calls of judged open-ended trials count (they are charged to the run's budget).
    const judge = judges.get(model.id)?.primary;
    const judgePrice = judge ? modelPrice(judge, study.spec.prices) : undefined;
    let calls = 0;
    let cost = 0;
    let batchCost = 0;
    for (const { condition, perTrial, tasks, synchronous, settingsMaxTokens, kind } of workload) {
      // The max_tokens each call is sent with (callParams): the most output it can cost.
      const outputPerCall = settingsMaxTokens ?? model.params.max_tokens ?? DEFAULT_MAX_TOKENS[kind];
      const cells = study.coverage?.get(model.id)?.get(condition);
      for (const { benchmarkId, itemId, promptTokens, judged } of tasks) {
        if (study.coverage && !cells?.get(benchmarkId)?.has(itemId)) continue;
        calls += perTrial * attempts;
        if (price) {
          const usage = { inputTokens: promptTokens * perTrial, outputTokens: outputPerCall * perTrial };
          cost += costUsd(usage, price).usd * attempts;
          batchCost += costUsd(usage, synchronous ? price : priceInBatch).usd * attempts;
        }
        if (judge && judged) {
          calls += judgeCallsPerTrial * attempts;
          if (judgePrice) {
            const usage = {
              inputTokens: (promptTokens + outputPerCall + JUDGE_PROMPT_TOKENS) * judgeCallsPerTrial,
              outputTokens: judgeMaxTokens(judge) * judgeCallsPerTrial,
            };
            cost += costUsd(usage, judgePrice).usd * attempts;
            batchCost += costUsd(usage, judgePrice).usd * attempts;
          }
        }
      }
    }
    return {
      model: model.id,
      trials: modelTrials(study, model.id),
      // Judge calls are expectations (subsample shares): the estimate is rounded.
      calls: Math.round(calls),
      costUsd: price ? cost : null,
      batchCostUsd: price ? batchCost : null,
    };
  });
  return {
    models: study.spec.models.length,
    conditions: study.conditions.length,
    items: itemCount,
    attempts,
    cells: study.coverage
      ? countCells(study)
      : study.spec.models.length * perBenchmark.reduce((sum, b) => sum + b.conditions, 0),
    trials: perModel.reduce((sum, m) => sum + m.trials, 0),
    estimatedCalls: perModel.reduce((sum, m) => sum + m.calls, 0),
    estimatedCostUsd: perModel.reduce((sum, m) => sum + (m.costUsd ?? 0), 0),
    estimatedBatchCostUsd: perModel.reduce((sum, m) => sum + (m.batchCostUsd ?? 0), 0),
    modelsWithoutPrice: perModel.filter((m) => m.costUsd === null).map((m) => m.model),
    perModel,
    perBenchmark,
    configurationCells: study.coverage
      ? countConfigurationCells(study)
      : study.spec.models.length * perBenchmark.reduce((sum, b) => sum + b.configurations, 0),
    ...(study.families ? { families: familyPlans(study) } : {}),
  };
}

/** With families: the (model, condition, benchmark) cells that run at least one item. */
function countCells(study: PreparedStudy): number {
  let cells = 0;
  for (const model of study.spec.models)
    for (const benchmarkId of study.items.keys())
      for (const condition of conditionsOf(study, benchmarkId))
        if (cellSize(study, model.id, condition, benchmarkId) > 0) cells++;
  return cells;
}

/** With families: model x benchmark x configuration cells that run at least one item. */
function countConfigurationCells(study: PreparedStudy): number {
  const seen = new Set<string>();
  for (const model of study.spec.models)
    for (const benchmarkId of study.items.keys())
      for (const condition of conditionsOf(study, benchmarkId))
        if (cellSize(study, model.id, condition, benchmarkId) > 0)
          seen.add(`${model.id}\u0000${benchmarkId}\u0000${conditionHash(configurationOf(condition))}`);
  return seen.size;
}

/**
 * Per condition: the calls its scaffold makes per trial, and the estimated prompt tokens of each
 * item's rendered task (in item order). The task does not depend on the model, so each is
 * rendered once, not once per model.
 */
function conditionWorkloads(study: PreparedStudy): {
  condition: Condition;
  perTrial: number;
  tasks: { benchmarkId: string; itemId: string; promptTokens: number; judged: boolean }[];
  synchronous: boolean;
  /** The scaffold setting max_tokens, and the scaffold's kind for the default (callParams). */
  settingsMaxTokens: number | undefined;
  kind: keyof typeof DEFAULT_MAX_TOKENS;
}[] {
  return study.conditions.map((condition) => {
    const { scaffold, settings } = scaffoldOf(condition);
    const tasks: { benchmarkId: string; itemId: string; promptTokens: number; judged: boolean }[] = [];
    for (const [benchmarkId, items] of study.items) {
      if (!conditionsOf(study, benchmarkId).includes(condition)) continue;
      const context = { exemplars: study.exemplars.get(benchmarkId) };
      // With families, only the items some model runs under this condition are rendered.
      const used = study.coverage ? itemsUnderCondition(study, condition, benchmarkId) : undefined;
      for (const item of items.values()) {
        if (used && !used.has(item.id)) continue;
        const task = renderTrialTask(item, condition, context);
        tasks.push({
          benchmarkId,
          itemId: item.id,
          promptTokens: estimateTokens(renderTask(task)),
          judged: judgedAtRunTime(study.spec, { benchmarkId: item.benchmark, condition }, item, () => task),
        });
      }
    }
    // Log-prob scoring is never batched: its calls cost the synchronous price in batch mode too.
    const settingsMaxTokens = typeof settings.max_tokens === "number" ? settings.max_tokens : undefined;
    return {
      condition,
      perTrial: scaffold.expectedCalls(settings),
      tasks,
      synchronous: scoringPathOf(condition) === "logprob",
      settingsMaxTokens,
      // Only the direct scaffold calls with the direct default; any other may use the larger one.
      kind: scaffold.name === DEFAULT_SCAFFOLD ? "direct" : "scaffolded",
    };
  });
}

/** With families: the items of a benchmark that any model runs under a condition. */
function itemsUnderCondition(study: PreparedStudy, condition: Condition, benchmarkId: string): Set<string> {
  const used = new Set<string>();
  for (const byCondition of study.coverage?.values() ?? [])
    for (const id of byCondition.get(condition)?.get(benchmarkId) ?? []) used.add(id);
  return used;
}

/** What the planner needs to know of a model's provider. */
export interface ProviderFacts {
  capabilities: ReadonlySet<Capability>;
  /** The provider implements continuationLogprobs. */
  scoresContinuations: boolean;
}

/**
 * Refuses cells that cannot run, before anything is written: a log-prob cell on a provider
 * without `continuation_logprobs`, a log-prob cell with a scaffold (the log-prob path replaces
 * generation, so a scaffold there would be a silent no-op), a log-prob cell on items without
 * options, and a judge that would score its own model's responses. Unknown facet values were
 * refused when the spec loaded (facets/validate.ts).
 */
export function refuseImpossibleCells(study: PreparedStudy, facts: (modelId: string) => ProviderFacts): void {
  assignJudges(study.spec);
  const logprobConditions = study.conditions.filter((c) => scoringPathOf(c) === "logprob");
  if (logprobConditions.length === 0) return;
  for (const condition of logprobConditions) {
    const scaffold = scaffoldOf(condition).scaffold.name;
    if (scaffold !== DEFAULT_SCAFFOLD) {
      throw new InputError(
        `scoring_path 'logprob' with scaffold '${scaffold}': log-prob scoring bypasses the scaffold; exclude the pair in conditions.exclude`,
      );
    }
  }
  for (const model of study.spec.models) {
    const known = facts(model.id);
    if (!known.capabilities.has("continuation_logprobs") || !known.scoresContinuations) {
      throw new InputError(
        `model '${model.id}' (provider ${model.provider}) has no continuation_logprobs capability, so it cannot run the scoring_path 'logprob' cells; ` +
          "use a provider that scores continuations (llama, or openai with options.completions_logprobs) or exclude those cells",
      );
    }
  }
  for (const [benchmarkId, items] of study.items) {
    if (!conditionsOf(study, benchmarkId).some((c) => scoringPathOf(c) === "logprob")) continue;
    const missing = [...items.values()].find(
      (item) =>
        (!item.options || item.options.length < 2) && !ranksOwnCandidates(logprobScorerOf(study, benchmarkId, item)),
    );
    if (missing) {
      throw new InputError(
        `benchmark '${benchmarkId}': item '${missing.id}' has no options to rank on the scoring_path 'logprob'`,
      );
    }
  }
}

function ranksOwnCandidates(scorer: AnyScorer): boolean {
  return scorer.kind === "logprob" && scorer.ownCandidates === true;
}

/** The scorer of an item's log-prob trials (the spec's override, else its loader's). */
function logprobScorerOf(study: PreparedStudy, benchmarkId: string, item: Item): AnyScorer {
  const scoring = study.spec.scoring;
  return scorers.get(
    defaultScorerName({
      defaults: datasetLoaders.get(loaderOf(study.spec, benchmarkId)).meta.scorers,
      format: "mc",
      scoringPath: "logprob",
      override: scoring?.per_benchmark?.[benchmarkId] ?? scoring?.default,
      pairItem: typeof item.metadata.sent_more_index === "number" && item.goldIndex === undefined,
    }),
  );
}
