import type { Item } from "../contracts/item.js";
import type {
  ChatMessage,
  ContinuationLogprobRequest,
  ContinuationLogprobResult,
  TokenUsage,
} from "../contracts/provider.js";
import type { TaskInput } from "../contracts/task.js";
import type { ParseStatus } from "../contracts/trial.js";

export interface ScoreResult {
  parsedAnswer: string | null;
  parseStatus: ParseStatus;
  /** 1 correct/safe, 0 not, null when the scorer cannot decide. */
  score: number | null;
  /** Evidence for inspection (matched marker, log-likelihoods, verdict, ...). */
  details?: Record<string, unknown>;
}

/** A scorer of the response text alone (deterministic; no model call). */
export interface Scorer {
  name: string;
  /** Bumped whenever the scorer's behaviour changes, so stored scores say which one made them. */
  version: string;
  kind?: "text";
  score(item: Item, task: TaskInput, finalText: string): ScoreResult;
}

/**
 * Log-probabilities of continuations, injected by the run layer (scoring never imports models):
 * one call per item, all continuations after one shared prompt.
 */
export type LogprobFn = (
  request: Omit<ContinuationLogprobRequest, "model" | "signal">,
) => Promise<ContinuationLogprobResult>;

/** What a log-prob scorer asks for: one prompt and the continuations to score after it. */
export interface LogprobRequestPlan {
  prompt: string;
  continuations: string[];
}

/**
 * A log-prob scorer: plans one continuationLogprobs request for an item and scores the raw
 * result. Scoring is a pure function of the stored raw result, so a trial can be re-scored
 * (e.g. with length normalisation) without calling the model again.
 */
export interface LogprobScorer {
  name: string;
  version: string;
  kind: "logprob";
  /** `body` is the rendered task (the same text the free-form path sends), without a chat template. */
  plan(item: Item, task: TaskInput, body: string): LogprobRequestPlan;
  score(item: Item, task: TaskInput, raw: ContinuationLogprobResult, options: LogprobOptions): ScoreResult;
}

export interface LogprobOptions {
  /** Argmax over option texts (lm-eval style) or over answer letters. */
  basis: "text" | "letter";
  /** Divide each option's log-likelihood by its token count. */
  lengthNormalise: boolean;
}

/** One judge call, injected by the run layer (which builds it from a model spec with retries). */
export type JudgeFn = (
  messages: ChatMessage[],
  /** The judged trial's attempt (part of the response-cache key, as for the trial's own calls). */
  attempt?: number,
) => Promise<{ text: string; usage: TokenUsage; cached?: boolean }>;

export type AnyScorer = Scorer | LogprobScorer;

export function isLogprobScorer(scorer: AnyScorer): scorer is LogprobScorer {
  return scorer.kind === "logprob";
}
