/**
 * The executor's vocabulary: a model ready to call, the options of a run pass, and what a
 * trial and a whole pass report back.
 */
import type { Item } from "../../contracts/item.js";
import type { GenerationParams, Provider } from "../../contracts/provider.js";
import type { ModelSpec } from "../../contracts/spec.js";
import type { TaskInput } from "../../contracts/task.js";
import type { Toolbox } from "../../contracts/tool.js";
import type { CallRecord } from "../../contracts/trial.js";
import type { AnyScorer, LogprobOptions, ScoreResult, Scorer } from "../../scoring/types.js";
import type { TrialCompletion, TrialRow, TrialStore } from "../store/types.js";
import type { AgentLimits } from "./agent-limits.js";
import type { BudgetLedger, BudgetLimits, BudgetReport, RunBudget } from "./budget.js";
import type { TrialEvent } from "./trial-event.js";
import type { TrialSource } from "./trial-source.js";

export type { TrialEvent } from "./trial-event.js";

export interface ModelRuntime {
  spec: ModelSpec;
  provider: Provider;
  params: GenerationParams;
  price: { input_per_mtok: number; output_per_mtok: number } | undefined;
  /** Batch mode: the synchronous price, for the calls that stay synchronous (log-prob scoring); `price` is the batch price. */
  syncPrice?: { input_per_mtok: number; output_per_mtok: number } | undefined;
}

export interface ExecuteOptions {
  store: TrialStore;
  runId: string;
  /** Where the trials to execute come from (default: this run's unfinished trials in the store). */
  source?: TrialSource;
  items: Map<string, Map<string, Item>>;
  /** Each benchmark's few-shot exemplar pool (the `few_shot` facet draws from it). */
  exemplars?: Map<string, Item[]>;
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
  /**
   * Limits for the whole run, kept in a counter shared by every worker and resume (`ledger`,
   * default the store): each call is reserved before it is made (execute/budget.ts).
   */
  budget?: BudgetLimits & { ledger?: BudgetLedger };
  onTrialDone?: (event: TrialEvent) => void;
  /**
   * The run's judge (spec scoring.judges): scores open-ended trials by blinded judge calls made
   * as the trial's own sub-calls (cached, charged to the budget, committed with the trial).
   */
  judging?: TrialJudging;
  /** Agent trials (scaffolds that declare tools): their toolbox and per-trial limits. */
  agents?: AgentRuntime;
}

/** What agent trials need from the run: a toolbox per trial and the spec's per-trial limits. */
export interface AgentRuntime {
  /** A fresh toolbox offering `tools`, with the files at `attachments` copied into its work dir. */
  toolbox(tools: readonly string[], attachments: readonly string[]): Promise<Toolbox>;
  limits?: AgentLimits;
}

/** Judging of a trial's answer, inside the trial (src/run/score/run-judging.ts). */
export interface TrialJudging {
  /** Whether the trial's answer is judged (its run-time score is then the primary judge's). */
  applies(trialId: string): boolean;
  /** Makes the judge calls (pushed to `attempt.calls`) and returns the primary judge's score. */
  judge(attempt: TrialAttempt, finalText: string): Promise<{ scored: ScoreResult; scorer: string }>;
}

export interface ExecuteSummary {
  attempted: number;
  finished: number;
  errored: number;
  abandoned: number;
  calls: number;
  costUsd: number;
  /**
   * "auth": a call failed authentication (401/403); see `authFailure`. "sandbox": a tool call's
   * sandbox failed (bubblewrap missing or broken); see `sandboxFailure`.
   */
  stoppedBy: "completed" | "stop" | "budget" | "auth" | "sandbox";
  /** The first authentication failure's message, when one stopped the run. */
  authFailure?: string;
  /** The first sandbox failure's message, when one stopped the run. */
  sandboxFailure?: string;
  /** The shared budget when this pass ended (with limits only): spent, reserved in flight, past the limits. */
  budget?: BudgetReport;
}

/** What one trial's execution needs: the pass's options and where its completion goes (group commit). */
export interface TrialContext
  extends Pick<
    ExecuteOptions,
    | "store"
    | "items"
    | "exemplars"
    | "models"
    | "scorer"
    | "scorerFor"
    | "logprobOptions"
    | "cache"
    | "abortSignal"
    | "judging"
    | "agents"
  > {
  commit: (entry: TrialCompletion) => Promise<boolean>;
  /** Every provider call is made through it (reserved before, settled after). */
  budget?: RunBudget;
}

/** One execution of one trial, as both answer paths (free form and log-prob) receive it. */
export interface TrialAttempt {
  trial: TrialRow;
  /** 1 for the first execution; a retried errored trial counts up. */
  execution: number;
  model: ModelRuntime;
  /** Every sub-call made so far, recorded in order (kept on failure too). */
  calls: CallRecord[];
  options: TrialContext;
  item: Item;
  task: TaskInput;
}
