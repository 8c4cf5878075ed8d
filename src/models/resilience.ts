/**
 * The resilience layer every remote provider runs behind: retries with exponential backoff
 * and full jitter (honouring Retry-After), a per-attempt timeout, requests/tokens-per-minute
 * token buckets and a concurrency cap, per model. Clock, sleep, timer and randomness are
 * injected so tests are exact and instant.
 */
import type {
  Capability,
  ContinuationLogprobRequest,
  ContinuationLogprobResult,
  GenerateRequest,
  GenerateResult,
  Provider,
  TokenUsage,
} from "../contracts/provider.js";
import type { ExecutionSpec, RateLimit } from "../contracts/spec.js";
import pLimit, { type LimitFunction } from "p-limit";
import { ProviderError } from "../core/errors.js";
import { isKeyWait, isMalformed } from "./errors.js";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
/** Starts a timer; returns its cancel function. */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

export interface ResilienceOptions {
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** Retries allowed for malformed 2xx bodies, within maxRetries (default 1). */
  maxMalformedRetries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * The longest one logical call may wait in total: backoff sleeps, Retry-After and waits
   * for a cooling key. A wait that would go beyond it is not started: the call fails at once
   * with a rate_limit error that says so. Default: the policy's own longest backoff,
   * max(1, maxRetries) x maxDelayMs.
   */
  maxWaitMs?: number;
  /** Per-attempt timeout; 0 or absent disables it. */
  timeoutMs?: number;
  rateLimit?: RateLimit;
  now?: () => number;
  sleep?: Sleep;
  setTimer?: SetTimer;
  random?: () => number;
  /** Called before each backoff sleep (for logs and the trial transcript). */
  onRetry?: (info: RetryInfo) => void;
}

/** Options from the study's execution block and the model's rate_limit. */
export function resilienceFromSpec(execution: ExecutionSpec, rateLimit?: RateLimit): ResilienceOptions {
  return {
    maxRetries: execution.max_retries,
    timeoutMs: execution.timeout_s * 1000,
    baseDelayMs: execution.backoff_base_ms,
    maxDelayMs: execution.backoff_max_ms,
    rateLimit,
  };
}

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

const realSetTimer: SetTimer = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

/** A token bucket: `capacity` tokens, refilled continuously at `refillPerMs`. May go into debt. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly capacity: number,
    private readonly refillPerMs: number,
    private readonly now: () => number,
  ) {
    this.tokens = capacity;
    this.last = now();
  }

  /** Milliseconds until `n` tokens are available (0 = now). `n` is capped at capacity. */
  waitFor(n: number): number {
    this.refill();
    const need = Math.min(n, this.capacity) - this.tokens;
    return need <= 0 ? 0 : Math.ceil(need / this.refillPerMs);
  }

  take(n: number): void {
    this.refill();
    this.tokens -= Math.min(n, this.capacity);
  }

  /** Charges (positive) or refunds (negative) tokens after the fact. */
  adjust(delta: number): void {
    this.refill();
    this.tokens = Math.min(this.capacity, this.tokens - delta);
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + (t - this.last) * this.refillPerMs);
    this.last = t;
  }
}

/** Per-model limits: rpm and tpm buckets plus the concurrency cap. */
export class ModelLimiter {
  private readonly rpm?: TokenBucket;
  private readonly tpm?: TokenBucket;
  /** The concurrency cap: a FIFO pool (p-limit), the project's one concurrency primitive. */
  private readonly slots?: LimitFunction;

  constructor(
    limit: RateLimit | undefined,
    now: () => number,
    private readonly sleep: Sleep,
  ) {
    if (limit?.rpm) this.rpm = new TokenBucket(limit.rpm, limit.rpm / 60_000, now);
    if (limit?.tpm) this.tpm = new TokenBucket(limit.tpm, limit.tpm / 60_000, now);
    if (limit?.concurrency) this.slots = pLimit(limit.concurrency);
  }

  /** Calls in flight under the concurrency cap. */
  get inFlight(): number {
    return this.slots?.activeCount ?? 0;
  }

  /**
   * Runs `call` in a concurrency slot, after waiting for one request and `tokens` tokens of
   * budget. A call aborted while it waits for a slot rejects at once with the abort reason.
   */
  run<T>(tokens: number, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    if (!this.slots) return this.paced(tokens, signal, call);
    signal?.throwIfAborted();
    let started = false;
    const queued = this.slots(() => {
      started = true;
      signal?.throwIfAborted();
      return this.paced(tokens, signal, call);
    });
    if (!signal) return queued;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (!started) reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      queued.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private async paced<T>(tokens: number, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    for (;;) {
      const wait = Math.max(this.rpm?.waitFor(1) ?? 0, this.tpm?.waitFor(tokens) ?? 0);
      if (wait === 0) break;
      await this.sleep(wait, signal);
    }
    this.rpm?.take(1);
    this.tpm?.take(tokens);
    return call();
  }

  /** Replaces the pre-call estimate with the tokens the call really used. */
  settle(estimate: number, usage: TokenUsage | undefined): void {
    if (!this.tpm || !usage) return;
    const charged = Math.min(estimate, this.tpm.capacity);
    this.tpm.adjust(usage.inputTokens + usage.outputTokens - charged);
  }
}

/** Rough pre-call token estimate: ~4 characters per token, plus the output budget. */
export function estimateTokens(request: GenerateRequest): number {
  const chars = request.messages.reduce((sum, m) => sum + m.content.length, 0);
  return Math.ceil(chars / 4) + (request.params.maxTokens ?? 0);
}

function estimateLogprobTokens(request: ContinuationLogprobRequest): number {
  return request.continuations.reduce((sum, c) => sum + Math.ceil((request.prompt.length + c.length) / 4), 0);
}

interface Resolved {
  maxRetries: number;
  maxMalformedRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxWaitMs: number;
  timeoutMs: number;
  now: () => number;
  sleep: Sleep;
  setTimer: SetTimer;
  random: () => number;
  onRetry?: (info: RetryInfo) => void;
}

function resolve(options: ResilienceOptions): Resolved {
  const maxRetries = options.maxRetries ?? 4;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  return {
    maxRetries,
    maxMalformedRetries: options.maxMalformedRetries ?? 1,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs,
    maxWaitMs: options.maxWaitMs ?? Math.max(1, maxRetries) * maxDelayMs,
    timeoutMs: options.timeoutMs ?? 0,
    now: options.now ?? Date.now,
    sleep: options.sleep ?? realSleep,
    setTimer: options.setTimer ?? realSetTimer,
    random: options.random ?? Math.random,
    onRetry: options.onRetry,
  };
}

/**
 * Delay before retry number `attempt` (0-based): the server's Retry-After when given
 * (not capped by maxDelayMs: retrying earlier only earns another 429), else full jitter
 * uniform(0, min(max, base * 2^attempt)).
 */
export function backoffDelay(error: ProviderError, attempt: number, o: Resolved): number {
  const retryAfter = error.options.retryAfterMs;
  if (retryAfter !== undefined) return retryAfter;
  const ceiling = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt);
  return Math.floor(o.random() * ceiling);
}

/**
 * Runs one attempt under the per-attempt timeout, aborting the call when it fires. The attempt's
 * one signal also follows the run's, through a listener removed when the attempt ends (not
 * AbortSignal.any: on Node 20 each such signal leaves a WeakRef in the long-lived run signal's set
 * of dependants, nodejs/node#55351, tens of megabytes over a paper-scale run). A provider that
 * reads no signal gets the run's, and its call is only raced against the timer.
 */
async function withTimeout<T>(
  o: Resolved,
  outer: AbortSignal | undefined,
  call: (signal: AbortSignal | undefined) => Promise<T>,
  readsSignal: boolean,
): Promise<T> {
  if (!o.timeoutMs) return call(outer);
  if (!readsSignal) return raceTimer(o, () => call(outer));
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onOuterAbort, { once: true });
  try {
    return await raceTimer(
      o,
      () => call(controller.signal),
      (timeout) => controller.abort(timeout),
    );
  } finally {
    outer?.removeEventListener("abort", onOuterAbort);
  }
}

/**
 * The call's answer, or the timeout's error when the timer fires first (racing guards against a
 * provider that ignores its signal). The error is made only when the timer fires: capturing its
 * stack on every call is wasted on the calls that do not time out.
 */
async function raceTimer<T>(
  o: Resolved,
  call: () => Promise<T>,
  onTimeout?: (timeout: ProviderError) => void,
): Promise<T> {
  let cancel = () => {};
  let timeout: ProviderError | undefined;
  const timer = new Promise<never>((_, reject) => {
    cancel = o.setTimer(() => {
      timeout = new ProviderError(`timed out after ${o.timeoutMs} ms`, "timeout", { retryable: true });
      onTimeout?.(timeout);
      reject(timeout);
    }, o.timeoutMs);
  });
  try {
    return await Promise.race([call(), timer]);
  } catch (error) {
    throw timeout ?? error;
  } finally {
    cancel();
  }
}

function shouldRetry(error: unknown, attempt: number, malformedSoFar: number, o: Resolved): error is ProviderError {
  if (!(error instanceof ProviderError) || !error.retryable) return false;
  if (attempt >= o.maxRetries) return false;
  return !isMalformed(error) || malformedSoFar < o.maxMalformedRetries;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** The wait `delayMs` would take the call past the policy's limit: fail now, and say why. */
function waitLimitError(error: ProviderError, delayMs: number, waitedMs: number, o: Resolved): ProviderError {
  const what = isKeyWait(error) ? "waiting for a cooling API key" : "backing off";
  return new ProviderError(
    `rate limit: ${what} would take ${seconds(delayMs)} more (already waited ${seconds(waitedMs)}), ` +
      `beyond the retry policy's wait limit of ${seconds(o.maxWaitMs)} ` +
      `(max(1, execution.max_retries) x execution.backoff_max_ms); not waiting. The trial is stored as ` +
      `errored and the next \`parallax run\` retries it. Last error: ${error.message}`,
    "rate_limit",
    { retryable: false, status: error.options.status, retryAfterMs: delayMs },
  );
}

/**
 * The retry loop around one logical call. A `KeyWaitError` (every key cooling, nothing
 * sent) waits for the key without spending an attempt; every wait counts against maxWaitMs.
 */
async function retrying<T>(
  o: Resolved,
  signal: AbortSignal | undefined,
  attemptOnce: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  let malformed = 0;
  let attempt = 0;
  let waited = 0;
  for (;;) {
    try {
      return await attemptOnce(signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      const keyWait = isKeyWait(error);
      if (!keyWait && !shouldRetry(error, attempt, malformed, o)) throw error;
      const providerError = error as ProviderError;
      const delayMs = keyWait ? (providerError.options.retryAfterMs ?? 0) : backoffDelay(providerError, attempt, o);
      if (waited + delayMs > o.maxWaitMs) throw waitLimitError(providerError, delayMs, waited, o);
      waited += delayMs;
      if (!keyWait) {
        if (isMalformed(error)) malformed += 1;
        attempt += 1;
        o.onRetry?.({ attempt, delayMs, error: providerError });
      }
      await o.sleep(delayMs, signal);
    }
  }
}

/** Wraps a provider with retries, timeouts, rate limits and a concurrency cap (per model). */
export function withResilience(inner: Provider, options: ResilienceOptions = {}): Provider {
  const o = resolve(options);
  const limiters = new Map<string, ModelLimiter>();
  const limiterFor = (model: string): ModelLimiter => {
    let limiter = limiters.get(model);
    if (!limiter) {
      limiter = new ModelLimiter(options.rateLimit, o.now, o.sleep);
      limiters.set(model, limiter);
    }
    return limiter;
  };

  // Every attempt (not only the first) passes the limiter: a retry is a request too.
  const limited = async <T extends { usage: TokenUsage }>(
    model: string,
    estimate: number,
    signal: AbortSignal | undefined,
    call: (signal: AbortSignal | undefined) => Promise<T>,
  ): Promise<T> => {
    const limiter = limiterFor(model);
    return limiter.run(estimate, signal, async () => {
      const result = await withTimeout(o, signal, call, inner.readsSignal !== false);
      limiter.settle(estimate, result.usage);
      return result;
    });
  };

  const wrapped: Provider = {
    name: inner.name,
    simulated: inner.simulated,
    capabilities: (model: string): ReadonlySet<Capability> => inner.capabilities(model),
    generate: (request: GenerateRequest): Promise<GenerateResult> =>
      retrying(o, request.signal, (signal) =>
        limited(request.model, estimateTokens(request), signal, (s) => inner.generate({ ...request, signal: s })),
      ),
    close: inner.close ? () => inner.close!() : undefined,
  };
  if (inner.continuationLogprobs) {
    const scoring = inner.continuationLogprobs.bind(inner);
    wrapped.continuationLogprobs = (request: ContinuationLogprobRequest): Promise<ContinuationLogprobResult> =>
      retrying(o, request.signal, (signal) =>
        limited(request.model, estimateLogprobTokens(request), signal, (s) => scoring({ ...request, signal: s })),
      );
  }
  // Which weights answer (a local file's hash): no call, so nothing to retry or limit.
  if (inner.modelRevision) wrapped.modelRevision = inner.modelRevision.bind(inner);
  // Batch mode (src/run/execute/batch/) polls with its own backoff; the API passes through.
  if (inner.batch) wrapped.batch = inner.batch;
  return wrapped;
}
