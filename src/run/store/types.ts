/**
 * The trial store contract. One implementation (kysely) serves SQLite (embedded default,
 * one file per study directory) and PostgreSQL (scale-out). Crash safety rests on
 * `completeTrial` being one transaction: a trial's calls and its outcome land together or
 * not at all, and a finished trial is never overwritten.
 */
import type { StudySpec } from "../../contracts/spec.js";
import type { CallRecord, PlannedTrial, ScoreRecord, TrialOutcome, TrialStatus } from "../../contracts/trial.js";
import type { GenerateResult } from "../../contracts/provider.js";

export interface RunRecord {
  id: string;
  study: string;
  specHash: string;
  manifestHash: string;
  spec: StudySpec;
  createdAt: string;
  parallaxVersion: string;
}

export interface TrialRow extends PlannedTrial {
  status: TrialStatus;
  /** How many times the trial has been executed to completion or error (0 while pending). */
  executions: number;
  outcome: TrialOutcome | null;
  updatedAt: string | null;
}

export interface TrialCompletion {
  trialId: string;
  outcome: TrialOutcome;
  calls: CallRecord[];
}

export interface TrialStore {
  readonly dialect: "sqlite" | "postgres";
  /** Creates tables if missing; safe to call on every open. */
  migrate(): Promise<void>;
  /** Inserts the run, or leaves an existing run with the same id untouched. */
  saveRun(run: RunRecord): Promise<void>;
  /** The run with this id, or the most recently created one. */
  getRun(id?: string): Promise<RunRecord | undefined>;
  /** Inserts trials that are not there yet (by id); returns how many were new. Batches internally. */
  addPlannedTrials(trials: PlannedTrial[]): Promise<number>;
  /** Trials ordered by id; `afterId` and `limit` page through large runs with flat memory. */
  listTrials(runId: string, filter?: { status?: TrialStatus[]; limit?: number; afterId?: string }): Promise<TrialRow[]>;
  countByStatus(runId: string): Promise<Record<TrialStatus, number>>;
  /** What the run has spent so far: every stored call of every execution, and its cost. */
  spent(runId: string): Promise<{ calls: number; costUsd: number }>;
  /**
   * In one transaction: stores the calls of this execution and the outcome, sets status and
   * increments executions. Returns false, writing nothing, when the trial is already finished.
   */
  completeTrial(trialId: string, outcome: TrialOutcome, calls: CallRecord[]): Promise<boolean>;
  /**
   * Several completions in one transaction (group commit): each behaves as completeTrial, and
   * all land together or none do. Returns, per entry, whether it was written.
   */
  completeTrials(entries: readonly TrialCompletion[]): Promise<boolean[]>;
  /** Calls of a run (optionally of one trial), ordered by trial, execution, seq. */
  listCalls(runId: string, trialId?: string): Promise<CallRecord[]>;
  /** Calls of several trials in one query (a page of trials), grouped by trial id in call order. */
  listCallsOf(runId: string, trialIds: readonly string[]): Promise<Map<string, CallRecord[]>>;
  /**
   * Upserts scores by (trial, scorer, version) in one transaction: re-scoring with the same
   * scorer version replaces the earlier row, a new version adds one.
   */
  saveScores(records: readonly ScoreRecord[]): Promise<void>;
  /**
   * Scores of a run's trials, ordered by trial id then created_at; optionally of one scorer
   * (and version) and of some trials only.
   */
  listScores(
    runId: string,
    filter?: { scorer?: string; version?: string; trialIds?: readonly string[] },
  ): Promise<ScoreRecord[]>;
  cacheGet(key: string): Promise<GenerateResult | undefined>;
  cachePut(key: string, value: GenerateResult): Promise<void>;
  close(): Promise<void>;
}
