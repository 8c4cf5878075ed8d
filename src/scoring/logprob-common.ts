import type { ContinuationLogprob, ContinuationLogprobResult } from "../contracts/provider.js";

/** The cue after the rendered task on the log-prob path; continuations start with a space. */
export const ANSWER_CUE = "\n\nAnswer:";

/**
 * The log-prob prompt: the rendered task (the free-form path's text) and the answer cue, unless the
 * task already ends with one (SafetyRepro's T1-T3 end in "Answer:"; a second cue would be noise).
 */
export function logprobPrompt(body: string): string {
  return /Answer:\s*$/.test(body) ? body.trimEnd() : `${body}${ANSWER_CUE}`;
}

/** Summary of one scored continuation: log-likelihood, token count, per-token mean. */
export interface ScoredContinuation {
  continuation: string;
  logLikelihood: number;
  tokens: number;
  perToken: number;
  firstToken: string | null;
  firstTokenLogprob: number | null;
}

export function summarise(c: ContinuationLogprob): ScoredContinuation {
  // The sum is recomputed from the tokens: the provider's `total` is trusted only for display.
  const logLikelihood = c.tokens.reduce((sum, t) => sum + t.logprob, 0);
  return {
    continuation: c.continuation,
    logLikelihood,
    tokens: c.tokens.length,
    perToken: c.tokens.length === 0 ? Number.NEGATIVE_INFINITY : logLikelihood / c.tokens.length,
    firstToken: c.tokens[0]?.token ?? null,
    firstTokenLogprob: c.tokens[0]?.logprob ?? null,
  };
}

/** Stored log-probabilities that are not the ones this scorer asks for (another scorer's request). */
export class ContinuationMismatchError extends Error {
  constructor(got: number, expected: number) {
    super(`log-prob result does not match the request (${got} continuations for ${expected} expected)`);
    this.name = "ContinuationMismatchError";
  }
}

/** Checks the provider answered every continuation, in order. */
export function expectContinuations(raw: ContinuationLogprobResult, expected: readonly string[]): void {
  const got = raw.continuations.map((c) => c.continuation);
  if (got.length !== expected.length || got.some((c, i) => c !== expected[i])) {
    throw new ContinuationMismatchError(got.length, expected.length);
  }
}

/**
 * Index of the unique maximum of finite values, or undefined on a tie or when none is finite:
 * a tie has no answer, and the protocol never picks a default.
 */
export function uniqueArgmax(values: readonly number[]): number | undefined {
  let best = -1;
  let tied = false;
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    if (best < 0 || v > values[best]) {
      best = i;
      tied = false;
    } else if (v === values[best]) tied = true;
  });
  return best < 0 || tied ? undefined : best;
}

/** JSON cannot hold -Infinity: non-finite numbers are written as strings for the details. */
export function jsonNumber(value: number | null): number | string | null {
  return value === null || Number.isFinite(value) ? value : String(value);
}

/** The raw result as JSON-safe data (non-finite log-probabilities as strings), for a call note. */
export function encodeRaw(raw: ContinuationLogprobResult): Record<string, unknown> {
  return {
    continuations: raw.continuations.map((c) => ({
      continuation: c.continuation,
      tokens: c.tokens.map((t) => [t.token, jsonNumber(t.logprob)]),
    })),
    usage: raw.usage,
  };
}

/** Inverse of encodeRaw: what a re-score reads back from the stored call. */
export function decodeRaw(data: unknown): ContinuationLogprobResult {
  const value = data as { continuations: { continuation: string; tokens: [string, number | string | null][] }[] };
  if (!value || !Array.isArray(value.continuations)) throw new Error("stored log-prob call has no continuations");
  const continuations = value.continuations.map((c) => {
    const tokens = c.tokens.map(([token, lp]) => ({ token, logprob: lp === null ? Number.NaN : Number(lp) }));
    return { continuation: c.continuation, tokens, total: tokens.reduce((s, t) => s + t.logprob, 0) };
  });
  const usage = (data as { usage?: ContinuationLogprobResult["usage"] }).usage ?? { inputTokens: 0, outputTokens: 0 };
  return { continuations, usage };
}
