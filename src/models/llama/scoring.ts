/**
 * Tokenisation and log-probability scoring on the llama engine: plain text to tokens, the
 * log-likelihood of continuations, and the full next-token distribution.
 *
 * Continuation log-probabilities: each token's log-probability is read from the full
 * next-token distribution over the whole vocabulary (llama.cpp's softmax of the raw logits,
 * with no sampler filters), renormalised in float64: logprob = log p_t - log(sum_v p_v).
 * A distribution that is not the full vocabulary is an error, never a silent top-k.
 *
 * Tokenization at the boundary: P = tokens(prompt), F = tokens(prompt + continuation); the
 * scored tokens are F after the longest common prefix of P and F, conditioned on that
 * prefix. When P is a prefix of F (the usual case) these are exactly the continuation's
 * tokens in context. When the tokenizer merges across the boundary (e.g. a prompt ending in
 * a space, which SentencePiece joins to the next word), the first scored token also carries
 * the prompt's last characters (its text shows them) and is conditioned on the shorter
 * common prefix, rather than on a prompt tokenization that never occurs in F.
 *
 * Prefix reuse: the common prefix of all continuations (K tokens) is evaluated once; each
 * continuation's remaining tokens are evaluated on top of it and then erased from the
 * sequence, rewinding it to the prefix. llama.cpp's CPU kernels are not shape invariant: a
 * one-token decode, or a decode that reads a single output row, takes matrix-vector kernels
 * whose rounding differs from the matrix-matrix ones (measured on stories260K: 1e-8 to 5e-3
 * nats), while decodes of two or more tokens with two or more output rows agree exactly
 * whatever their sizes. So the provider evaluates each continuation including its last
 * token, never leaves a one-token chunk, reads at least two output rows per decode (adding a
 * neighbour when it needs one), and does not share a one-token prefix (an empty prompt after
 * BOS). Shared-prefix scores therefore equal scoring prompt + continuation from scratch in
 * one pass, to rounding (the tests check 1e-9).
 * Limitation: probabilities are float32 from llama.cpp, so a token more than ~87 nats below
 * the top token underflows to p = 0 and gets logprob -Infinity.
 */
import type { ControlledEvaluateInputItem, LlamaModel, Token } from "node-llama-cpp";
import type {
  ContinuationLogprob,
  ContinuationLogprobRequest,
  ContinuationLogprobResult,
  TokenLogprob,
} from "../../contracts/provider.js";
import { ProviderError } from "../../core/errors.js";
import { contextTooLong, type Session, throwIfAborted } from "./engine.js";

const WANT_PROBABILITIES = { generateNext: { probabilities: true } } as const;

/** The full next-token distribution after a prompt, indexed by token id. */
export interface NextTokenDistribution {
  /** The evaluated context (BOS included when the model uses one). */
  contextTokens: number[];
  /** Probabilities exactly as llama.cpp computed them (float32 softmax of the raw logits). */
  probabilities: Float64Array;
  /** The same distribution as float64 log-softmax (sums to 1 after exp up to rounding). */
  logprobs: Float64Array;
}

export interface NextTokenDistributionRequest {
  model: string;
  /** Plain text (no chat template); BOS is prepended as for continuation scoring. */
  prompt: string;
  signal?: AbortSignal;
}

/** The log-likelihood of each continuation after the prompt (see the header); run serialised on the session. */
export async function scoreContinuations(
  session: Session,
  request: ContinuationLogprobRequest,
): Promise<ContinuationLogprobResult> {
  const { model, sequence, contextSize } = session;
  const promptTokens = plainTokens(model, request.prompt);
  const items = request.continuations.map((continuation) => {
    const full = plainTokens(model, request.prompt + continuation);
    if (full.length > contextSize) {
      throw contextTooLong(full.length, contextSize, "prompt + continuation do not fit");
    }
    return { continuation, full, common: commonPrefixLength(promptTokens, full) };
  });
  if (items.length === 0) return { continuations: [], usage: { inputTokens: 0, outputTokens: 0 } };

  // Shared prefix: common to every continuation; a one-token prefix is not shared
  // (its logits would come from a one-token batch, see the header).
  let shared = Math.min(...items.map((i) => i.common));
  if (shared < 2) shared = 0;
  if (items.some((i) => i.common === 0 && i.full.length > 0)) {
    throw new ProviderError(
      "llama: cannot score a continuation with no preceding token (empty prompt and no BOS token)",
      "provider_error",
      { retryable: false },
    );
  }

  let evaluated = 0;
  await sequence.clearHistory();
  let prefixDistribution: Map<Token, number> | undefined;
  if (shared > 0) {
    const out = await evaluate(session, items[0].full.slice(0, shared), new Set([shared - 1]), 0);
    prefixDistribution = out.get(shared - 1);
    evaluated += shared;
  }

  const results: ContinuationLogprob[] = [];
  for (const item of items) {
    throwIfAborted(request.signal);
    const { full, common } = item;
    // Position j's token is scored from the distribution after position j - 1.
    const needed = new Set<number>();
    for (let j = common; j < full.length; j++) if (j - 1 >= shared) needed.add(j - 1);
    let distributions = new Map<number, Map<Token, number>>();
    if (needed.size > 0) {
      // Evaluate through the last token so that the batch never has a single token.
      distributions = await evaluate(session, full.slice(shared), needed, shared);
      evaluated += full.length - shared;
      await sequence.eraseContextTokenRanges([{ start: shared, end: sequence.nextTokenIndex }]);
    }
    const tokens: TokenLogprob[] = [];
    let total = 0;
    for (let j = common; j < full.length; j++) {
      const distribution = j - 1 < shared ? prefixDistribution : distributions.get(j - 1);
      if (!distribution) throw new Error(`llama: internal: no distribution for position ${j - 1}`);
      const logprob = tokenLogprob(distribution, full[j], session.vocabSize);
      const token = model.detokenize([full[j]], false, full.slice(Math.max(0, j - 16), j));
      tokens.push({ token, logprob });
      total += logprob;
    }
    results.push({ continuation: item.continuation, tokens, total });
  }
  await sequence.clearHistory();
  return { continuations: results, usage: { inputTokens: evaluated, outputTokens: 0 } };
}

/** The full next-token distribution after a plain-text prompt; run serialised on the session. */
export async function nextTokens(
  session: Session,
  request: NextTokenDistributionRequest,
): Promise<NextTokenDistribution> {
  const tokens = plainTokens(session.model, request.prompt);
  if (tokens.length === 0) throw new ProviderError("llama: empty context (no BOS token)", "provider_error");
  if (tokens.length > session.contextSize) {
    throw contextTooLong(tokens.length, session.contextSize, "the prompt does not fit");
  }
  await session.sequence.clearHistory();
  const out = await evaluate(session, tokens, new Set([tokens.length - 1]), 0);
  await session.sequence.clearHistory();
  const distribution = out.get(tokens.length - 1)!;
  const probabilities = fullDistribution(distribution, session.vocabSize);
  const logSum = Math.log(probabilities.reduce((a, b) => a + b, 0));
  const logprobs = probabilities.map((p) => Math.log(p) - logSum);
  return { contextTokens: tokens, probabilities, logprobs };
}

/**
 * Decodes `tokens` at sequence positions start.. in chunks of at most the batch size,
 * never leaving a one-token chunk, and returns the full next-token distributions at the
 * requested absolute positions.
 */
async function evaluate(
  session: Session,
  tokens: Token[],
  wanted: ReadonlySet<number>,
  start: number,
): Promise<Map<number, Map<Token, number>>> {
  const out = new Map<number, Map<Token, number>>();
  let offset = 0;
  for (const size of chunkSizes(tokens.length, session.batchSize)) {
    const outputs = new Set<number>();
    for (let i = 0; i < size; i++) if (wanted.has(start + offset + i)) outputs.add(i);
    // A single output row takes llama.cpp's matrix-vector path for the output layer, whose
    // rounding differs from the matrix-matrix path; ask for a neighbour too.
    if (outputs.size === 1 && size > 1) outputs.add([...outputs][0] === size - 1 ? size - 2 : size - 1);
    const chunk = tokens
      .slice(offset, offset + size)
      .map((token, i): ControlledEvaluateInputItem => (outputs.has(i) ? [token, WANT_PROBABILITIES] : token));
    const results = await session.sequence.controlledEvaluate(chunk);
    for (let i = 0; i < size; i++) {
      const probabilities = results[i]?.next.probabilities;
      if (probabilities) out.set(start + offset + i, probabilities);
    }
    offset += size;
  }
  for (const position of wanted) {
    if (!out.has(position)) throw new Error(`llama: internal: position ${position} was not evaluated`);
  }
  return out;
}

/** Plain text to tokens, with BOS when the model wants it; special-token text stays text. */
export function plainTokens(model: LlamaModel, text: string): Token[] {
  const bos = model.tokens.bos;
  const body = text.length > 0 ? model.tokenize(text, false) : [];
  return model.tokens.shouldPrependBosToken && bos !== null ? [bos, ...body] : body;
}

function fullDistribution(distribution: Map<Token, number>, vocabSize: number): Float64Array {
  // The engine returns every vocabulary entry when no sampler filter runs; anything else
  // would make the log-softmax wrong, so it is an error rather than a silent top-k.
  if (distribution.size !== vocabSize) {
    throw new Error(`llama: expected a distribution over ${vocabSize} tokens, got ${distribution.size}`);
  }
  const out = new Float64Array(vocabSize);
  for (const [token, p] of distribution) out[token] = p;
  return out;
}

function tokenLogprob(distribution: Map<Token, number>, token: Token, vocabSize: number): number {
  const probabilities = fullDistribution(distribution, vocabSize);
  let sum = 0;
  for (const p of probabilities) sum += p;
  return Math.log(probabilities[token]) - Math.log(sum);
}

function commonPrefixLength(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Splits n tokens into batches of at most `max` (>= 3), none of size 1 unless n is 1. */
export function chunkSizes(n: number, max: number): number[] {
  const sizes: number[] = [];
  let left = n;
  while (left > 0) {
    let size = Math.min(left, max);
    if (left - size === 1) size -= 1;
    sizes.push(size);
    left -= size;
  }
  return sizes;
}
