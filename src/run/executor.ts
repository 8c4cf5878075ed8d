/**
 * Executes a run's unfinished trials with bounded concurrency. Each trial runs its scaffold
 * against the model's provider, every sub-call is recorded, the answer is scored, and the
 * trial's calls and outcome are committed in one store transaction: a crash or kill loses
 * only trials in flight (they stay pending and run again on resume) and never duplicates a
 * finished one. Errored trials are retried on the next run; finished ones never are, however
 * wrong their answer.
 */
import { facetName, facetSettings } from "../contracts/condition.js";
import type { Item } from "../contracts/item.js";
import type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  GenerationParams,
  Provider,
} from "../contracts/provider.js";
import type { TaskInput } from "../contracts/task.js";
import type { ModelSpec } from "../contracts/spec.js";
import type { CallRecord, TrialOutcome } from "../contracts/trial.js";
import { ProviderError } from "../core/errors.js";
import { hashValue } from "../core/hash.js";
import { renderTrialTask } from "../facets/render.js";
import { costUsd } from "../models/pricing.js";
import { auditCall } from "../scaffolds/propagation.js";
import type { ScaffoldCall } from "../scaffolds/types.js";
import { scaffolds } from "../scaffolds/registry.js";
import { encodeRaw } from "../scoring/logprob-common.js";
import { renderTask } from "../scaffolds/prompt.js";
import {
  type AnyScorer,
  isLogprobScorer,
  type LogprobOptions,
  type LogprobScorer,
  type Scorer,
  type ScoreResult,
} from "../scoring/types.js";
import { DEFAULT_SCAFFOLD } from "./plan.js";
import { CommitBatcher } from "./commit-batcher.js";
import { eachTrial } from "./store/pages.js";
import type { TrialCompletion, TrialRow, TrialStore } from "./store/types.js";

export interface ModelRuntime {
  spec: ModelSpec;
  provider: Provider;
  params: GenerationParams;
  price: { input_per_mtok: number; output_per_mtok: number } | undefined;
}

export interface ExecuteOptions {
  store: TrialStore;
  runId: string;
  items: Map<string, Map<string, Item>>;
  models: Map<string, ModelRuntime>;
  /** The scorer of every trial, unless `scorerFor` chooses one per trial. */
  scorer?: Scorer;
  /** Chooses the run-time scorer of a trial (by benchmark, format and scoring path). */
  scorerFor?: (trial: TrialRow, item: Item, task: TaskInput) => AnyScorer;
  /** Settings of log-prob scorers (spec scoring.logprob_basis / length_normalise). */
  logprobOptions?: LogprobOptions;
  concurrency: number;
  cache: boolean;
  /** Stops scheduling new trials; in-flight trials finish. */
  stopSignal?: AbortSignal;
  /** Aborts in-flight calls; their trials stay unfinished. */
  abortSignal?: AbortSignal;
  /** Limits for the whole run: `spent` is what earlier invocations already used (resumes). */
  budget?: { maxCostUsd?: number; maxCalls?: number; spent?: { calls: number; costUsd: number } };
  onTrialDone?: (event: TrialEvent) => void;
}

export interface TrialEvent {
  trialId: string;
  status: "finished" | "errored" | "abandoned";
  costUsd: number;
  calls: number;
}

export interface ExecuteSummary {
  attempted: number;
  finished: number;
  errored: number;
  abandoned: number;
  calls: number;
  costUsd: number;
  stoppedBy: "completed" | "stop" | "budget";
}

const PAGE_SIZE = 500;

/** What a trial run needs beyond the options: where its completion goes (group commit). */
interface RunContext extends ExecuteOptions {
  commit: (entry: TrialCompletion) => Promise<boolean>;
}

export async function executeTrials(options: ExecuteOptions): Promise<ExecuteSummary> {
  const summary: ExecuteSummary = {
    attempted: 0,
    finished: 0,
    errored: 0,
    abandoned: 0,
    calls: 0,
    costUsd: 0,
    stoppedBy: "completed",
  };
  const queue = pendingTrials(options.store, options.runId);
  const batcher = new CommitBatcher(options.store);
  const context: RunContext = { ...options, commit: (entry) => batcher.complete(entry) };
  const shouldStop = (): boolean => {
    if (options.stopSignal?.aborted || options.abortSignal?.aborted) {
      summary.stoppedBy = "stop";
      return true;
    }
    if (overBudget(summary, options.budget)) {
      summary.stoppedBy = "budget";
      return true;
    }
    return false;
  };
  const worker = async (): Promise<void> => {
    while (!shouldStop()) {
      const next = await queue.next();
      if (next.done) return;
      summary.attempted++;
      const event = await runTrial(next.value, context);
      summary[event.status]++;
      summary.calls += event.calls;
      summary.costUsd += event.costUsd;
      options.onTrialDone?.(event);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return summary;
}

function overBudget(summary: ExecuteSummary, budget: ExecuteOptions["budget"]): boolean {
  if (!budget) return false;
  const cost = summary.costUsd + (budget.spent?.costUsd ?? 0);
  const calls = summary.calls + (budget.spent?.calls ?? 0);
  if (budget.maxCostUsd !== undefined && cost >= budget.maxCostUsd) return true;
  return budget.maxCalls !== undefined && calls >= budget.maxCalls;
}

/**
 * Unfinished trials of the run in id order, a page at a time. Shared by all workers: the
 * generator hands each trial out once. Trials that error during this pass are not fetched
 * again because paging moves strictly forward.
 */
function pendingTrials(store: TrialStore, runId: string): AsyncGenerator<TrialRow> {
  return eachTrial(store, runId, { status: ["pending", "errored"], pageSize: PAGE_SIZE });
}

async function runTrial(trial: TrialRow, options: RunContext): Promise<TrialEvent> {
  const model = options.models.get(trial.modelId);
  const item = options.items.get(trial.benchmarkId)?.get(trial.itemId);
  const calls: CallRecord[] = [];
  const execution = trial.executions + 1;
  const started = Date.now();
  try {
    if (!model || !item) throw new Error(`trial ${trial.id} refers to a model or item that is not in the study`);
    const task = renderTrialTask(item, trial.condition);
    const scorer = options.scorerFor?.(trial, item, task) ?? options.scorer;
    if (!scorer) throw new Error("executeTrials needs a scorer or scorerFor");
    const { finalText, scored } = isLogprobScorer(scorer)
      ? await logprobTrial(trial, execution, model, calls, options, item, task, scorer)
      : await scaffoldTrial(trial, execution, model, calls, options, item, task, scorer);
    return await complete(trial, options, calls, started, {
      status: "finished",
      finalAnswer: finalText,
      parsedAnswer: scored.parsedAnswer,
      parseStatus: scored.parseStatus,
      score: scored.score,
      scorer: `${scorer.name}@${scorer.version}`,
      failureBucket: null,
      errorMessage: null,
    });
  } catch (error) {
    if (options.abortSignal?.aborted)
      return { trialId: trial.id, status: "abandoned", costUsd: 0, calls: calls.length };
    const bucket = error instanceof ProviderError ? error.bucket : "other";
    return await complete(trial, options, calls, started, {
      status: "errored",
      finalAnswer: null,
      parsedAnswer: null,
      parseStatus: "not_applicable",
      score: null,
      scorer: null,
      failureBucket: bucket,
      errorMessage: error instanceof Error ? error.message : String(error),
    });
  }
}

interface ScoredRun {
  finalText: string;
  scored: ScoreResult;
}

/** The free-form path: the condition's scaffold runs, its final text is scored. */
async function scaffoldTrial(
  trial: TrialRow,
  execution: number,
  model: ModelRuntime,
  calls: CallRecord[],
  options: RunContext,
  item: Item,
  task: TaskInput,
  scorer: Scorer,
): Promise<ScoredRun> {
  const scaffoldValue = trial.condition.scaffold ?? DEFAULT_SCAFFOLD;
  const scaffold = scaffolds.get(facetName(scaffoldValue));
  const call = recordingCall(trial, execution, model, calls, options, task);
  // A scaffold's note (parsed decomposition, verdict, ...) belongs to its latest sub-call.
  const annotate = (note: Record<string, unknown>) => {
    const last = calls[calls.length - 1];
    if (last) last.note = { ...last.note, ...note };
  };
  const { finalText } = await scaffold.run(
    { task, params: model.params, call, annotate },
    facetSettings(scaffoldValue),
  );
  return { finalText, scored: scorer.score(item, task, finalText) };
}

/**
 * The log-prob path (scoring_path: logprob): no generation. The rendered task (the same text the
 * free-form path sends, so a perturbation of the task reaches both) is the shared prompt, and one
 * continuationLogprobs call scores every continuation the scorer asks for. The call is recorded
 * (role "logprob") with the raw log-probabilities in its note, so `parallax score` can re-score it.
 */
async function logprobTrial(
  trial: TrialRow,
  execution: number,
  model: ModelRuntime,
  calls: CallRecord[],
  options: RunContext,
  item: Item,
  task: TaskInput,
  scorer: LogprobScorer,
): Promise<ScoredRun> {
  const provider = model.provider;
  if (!provider.continuationLogprobs) {
    throw new ProviderError(`provider '${provider.name}' cannot score continuations`, "provider_error");
  }
  // `task` is rendered (renderTrialTask): its system prompt already is the variant's.
  const body = task.systemPrompt ? `${task.systemPrompt}\n\n${renderTask(task)}` : renderTask(task);
  const plan = scorer.plan(item, task, body);
  const base = {
    trialId: trial.id,
    execution,
    seq: calls.length + 1,
    role: "logprob",
    messages: [{ role: "user" as const, content: plan.prompt }],
    paramsUsed: {},
    droppedParams: [],
    startedAt: new Date().toISOString(),
  };
  const started = Date.now();
  try {
    const raw = await provider.continuationLogprobs({
      model: model.spec.model,
      prompt: plan.prompt,
      continuations: plan.continuations,
      signal: options.abortSignal,
    });
    const scored = scorer.score(item, task, raw, options.logprobOptions ?? { basis: "text", lengthNormalise: false });
    calls.push({
      ...base,
      responseText: scored.parsedAnswer,
      finishReason: null,
      usage: raw.usage,
      costUsd: costUsd(raw.usage, model.price).usd,
      latencyMs: Date.now() - started,
      cached: false,
      error: null,
      note: { logprob: encodeRaw(raw), score_details: scored.details ?? null },
    });
    return { finalText: scored.parsedAnswer ?? "", scored };
  } catch (error) {
    const bucket = error instanceof ProviderError ? error.bucket : "other";
    calls.push({
      ...base,
      responseText: null,
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      latencyMs: Date.now() - started,
      cached: false,
      error: { bucket, message: error instanceof Error ? error.message : String(error) },
    });
    throw error;
  }
}

type OutcomeCore = Omit<TrialOutcome, "usage" | "costUsd" | "latencyMs" | "droppedParams" | "simulated">;

async function complete(
  trial: TrialRow,
  options: RunContext,
  calls: CallRecord[],
  started: number,
  core: OutcomeCore,
): Promise<TrialEvent> {
  const model = options.models.get(trial.modelId);
  const outcome: TrialOutcome = {
    ...core,
    usage: {
      inputTokens: calls.reduce((sum, c) => sum + c.usage.inputTokens, 0),
      outputTokens: calls.reduce((sum, c) => sum + c.usage.outputTokens, 0),
    },
    costUsd: calls.reduce((sum, c) => sum + c.costUsd, 0),
    latencyMs: Date.now() - started,
    droppedParams: uniqueDrops(calls),
    simulated: model?.provider.simulated ?? false,
  };
  const written = await options.commit({ trialId: trial.id, outcome, calls });
  // A trial another worker finished first counts as neither finished nor errored here.
  const status = written ? core.status : "abandoned";
  return { trialId: trial.id, status, costUsd: outcome.costUsd, calls: calls.length };
}

function uniqueDrops(calls: CallRecord[]): TrialOutcome["droppedParams"] {
  const seen = new Map<string, TrialOutcome["droppedParams"][number]>();
  for (const call of calls) for (const drop of call.droppedParams) seen.set(drop.name, drop);
  return [...seen.values()];
}

/** The scaffold's call function: cache lookup, provider call, and a CallRecord either way. */
function recordingCall(
  trial: TrialRow,
  execution: number,
  model: ModelRuntime,
  calls: CallRecord[],
  options: ExecuteOptions,
  task: TaskInput,
): ScaffoldCall {
  return async (role, messages, overrides) => {
    const params = { ...model.params, ...overrides };
    const request: GenerateRequest = { model: model.spec.model, messages, params };
    const key = cacheKey(model, messages, params, trial.attempt);
    // The simulated panel is deterministic and free: caching its replies would only cost writes.
    const useCache = options.cache && !model.provider.simulated;
    const startedAt = new Date();
    const base = {
      trialId: trial.id,
      execution,
      seq: calls.length + 1,
      role,
      messages,
      startedAt: startedAt.toISOString(),
      // What of the task reached this sub-call (options, system prompt, safety instructions).
      audit: auditCall(task, role, messages),
    };
    try {
      const hit = useCache ? await options.store.cacheGet(key) : undefined;
      const result = hit ?? (await model.provider.generate({ ...request, signal: options.abortSignal }));
      if (useCache && !hit) await options.store.cachePut(key, result);
      calls.push(callRecord(base, result, model, hit !== undefined, Date.now() - startedAt.getTime()));
      return result;
    } catch (error) {
      const bucket = error instanceof ProviderError ? error.bucket : "other";
      const message = error instanceof Error ? error.message : String(error);
      calls.push({
        ...base,
        paramsUsed: params,
        droppedParams: [],
        responseText: null,
        usage: { inputTokens: 0, outputTokens: 0 },
        costUsd: 0,
        latencyMs: Date.now() - startedAt.getTime(),
        cached: false,
        error: { bucket, message },
      });
      throw error;
    }
  };
}

function callRecord(
  base: Pick<CallRecord, "trialId" | "execution" | "seq" | "role" | "messages" | "startedAt" | "audit">,
  result: GenerateResult,
  model: ModelRuntime,
  cached: boolean,
  latencyMs: number,
): CallRecord {
  return {
    ...base,
    paramsUsed: result.paramsUsed,
    droppedParams: result.droppedParams,
    responseText: result.text,
    toolCalls: result.toolCalls,
    finishReason: result.finishReason ?? null,
    usage: result.usage,
    // A cache hit costs nothing now, but the trial's cost is what its calls cost when made.
    costUsd: costUsd(result.usage, model.price).usd,
    latencyMs,
    cached,
    error: null,
  };
}

/**
 * Content address of a request: provider, endpoint, model, messages, parameters and the
 * attempt index, so repeated attempts of the same trial stay independent draws.
 */
export function cacheKey(
  model: ModelRuntime,
  messages: ChatMessage[],
  params: GenerationParams,
  attempt: number,
): string {
  return hashValue({
    provider: model.provider.name,
    baseUrl: model.spec.base_url ?? null,
    model: model.spec.model,
    options: model.spec.options ?? null,
    messages,
    params,
    attempt,
  });
}
