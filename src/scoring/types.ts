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
/**
 * Where a scorer has been checked against a reference (a held-out table of answers with known
 * extractions, the benchmark's official scorer): the benchmarks (by dataset loader name) and the
 * answer formats the check covers, and what it rests on. The measurement-integrity gate warns
 * when a verdict's numbers come from a scorer not marked validated for its benchmark and format.
 */
export interface ScorerValidation {
  /** Loader names ("bbq", "gaia"), or "any" for a scorer that reads only the answer format. */
  loaders: readonly string[] | "any";
  /** Formats (the `format` facet's values: "mc", "oe", ...). */
  formats: readonly string[];
  /** The evidence: the test, table or reference the validation rests on. */
  evidence: string;
}

/** Whether a scorer is marked validated for a benchmark's loader and a format. */
export function validatedFor(scorer: Pick<Scorer, "validated">, loader: string, format: string): boolean {
  return (scorer.validated ?? []).some(
    (v) => (v.loaders === "any" || v.loaders.includes(loader)) && v.formats.includes(format),
  );
}

export interface Scorer {
  name: string;
  /** Bumped whenever the scorer's behaviour changes, so stored scores say which one made them. */
  version: string;
  kind?: "text";
  /** Benchmarks and formats it is validated for (absent: validated for none). */
  validated?: readonly ScorerValidation[];
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
  /** Benchmarks and formats it is validated for (absent: validated for none). */
  validated?: readonly ScorerValidation[];
  /** True when it ranks candidates of its own (comply/refuse openings), so items need no options. */
  ownCandidates?: boolean;
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
