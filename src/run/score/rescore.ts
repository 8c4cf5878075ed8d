/**
 * Re-scoring (`parallax score DIR [--scorer NAME]`): any registered scorer (or each trial's
 * default) over the stored responses, or over the stored log-probabilities of log-prob trials,
 * against the task each trial was sent. One score row per (trial, scorer, version), so scorers
 * can be compared on the same responses; per-cell parse failures.
 */
import type { Item } from "../../contracts/item.js";
import type { TaskInput } from "../../contracts/task.js";
import type { ScoreRecord } from "../../contracts/trial.js";
import { ContinuationMismatchError, decodeRaw } from "../../scoring/logprob-common.js";
import { scorers } from "../../scoring/registry.js";
import { type AnyScorer, isLogprobScorer, type LogprobOptions, type ScoreResult } from "../../scoring/types.js";
import type { TrialRow, TrialStore } from "../store/types.js";
import { type CellParseSummary, CellTally } from "./cells.js";
import { logprobOptionsOf, scorerChooser } from "./choose.js";
import { finishedPages, type ScoringContext } from "./context.js";
import { checkTaskDrift, type TaskChoice, tasksOf, trialItems } from "./stored-tasks.js";

export interface RescoreResult {
  runId: string;
  scored: number;
  /** Trials the scorer does not apply to (a log-prob scorer on a trial without stored log-probabilities). */
  notApplicable: number;
  /** Trials scored against today's rendering because their stored task differs (`--rerender`). */
  rerendered: number;
  /** Trials stored before tasks were recorded: scored against today's rendering. */
  unrecordedTasks: number;
  cells: CellParseSummary[];
}

export interface RescoreOptions extends TaskChoice {
  /** A registered scorer (default: each trial's run-time default). */
  scorer?: string;
}

/** Scores every finished trial and stores the scores; refuses a study whose prompts changed since the run (see stored-tasks.ts). */
export async function rescoreStudy(
  context: ScoringContext,
  options: RescoreOptions | string = {},
): Promise<RescoreResult> {
  const { scorer: scorerName, rerender } = typeof options === "string" ? { scorer: options, rerender: false } : options;
  const { store, run, study } = context;
  const named = scorerName === undefined ? undefined : scorers.get(scorerName);
  const drift = await checkTaskDrift(context, { rerender });
  const choose = scorerChooser(study.spec);
  const logprobOptions = logprobOptionsOf(study.spec);
  const tally = new CellTally();
  let scored = 0;
  let notApplicable = 0;
  for await (const page of finishedPages(store, run.id)) {
    const tasks = await tasksOf(context, page, { rerender });
    const batch: ScoreRecord[] = [];
    for (const trial of page) {
      const item = trialItems(study, trial)?.scored;
      const task = tasks.get(trial.id);
      if (!item || !task) continue;
      const scorer = named ?? choose(trial, item, task);
      const result = await scoreStoredTrial(store, { runId: run.id, trial, item, task }, scorer, logprobOptions);
      if (!result) {
        notApplicable++;
        continue;
      }
      batch.push(toRecord(trial.id, scorer.name, scorer.version, result));
      tally.add(trial, scorer.name, result.parseStatus);
      scored++;
    }
    await store.saveScores(batch);
  }
  return {
    runId: run.id,
    scored,
    notApplicable,
    rerendered: rerender ? drift.differ : 0,
    unrecordedTasks: drift.unrecorded,
    cells: tally.rows(),
  };
}

/** One trial's score from what is stored: its final text, or its recorded log-probabilities. */
async function scoreStoredTrial(
  store: TrialStore,
  trialOf: { runId: string; trial: TrialRow; item: Item; task: TaskInput },
  scorer: AnyScorer,
  options: LogprobOptions,
): Promise<ScoreResult | undefined> {
  const { runId, trial, item, task } = trialOf;
  if (!isLogprobScorer(scorer)) return scorer.score(item, task, trial.outcome?.finalAnswer ?? "");
  const calls = await store.listCalls(runId, trial.id);
  const stored = calls.filter((c) => c.role === "logprob" && c.error === null && c.note?.logprob).at(-1);
  if (!stored) return undefined;
  try {
    return scorer.score(item, task, decodeRaw(stored.note!.logprob), options);
  } catch (error) {
    // Log-probabilities stored for another scorer's continuations: this scorer does not apply.
    if (error instanceof ContinuationMismatchError) return undefined;
    throw error;
  }
}

function toRecord(trialId: string, scorer: string, version: string, result: ScoreResult): ScoreRecord {
  return {
    trialId,
    scorer,
    version,
    parsedAnswer: result.parsedAnswer,
    parseStatus: result.parseStatus,
    score: result.score,
    details: result.details ?? null,
    createdAt: new Date().toISOString(),
  };
}
