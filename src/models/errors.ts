/**
 * Classification helpers shared by the remote providers: HTTP status -> failure bucket,
 * Retry-After parsing and the malformed-body error (secrets are scrubbed by core/secrets.ts).
 */
import type { FailureBucket } from "../contracts/failure.js";
import { ProviderError } from "../core/errors.js";

/**
 * A 2xx response whose body is not the JSON shape the API documents. Retryable, but the
 * resilience layer retries it only `maxMalformedRetries` times (default 1): a proxy hiccup
 * is worth one more try, a server that always answers garbage is not worth the full budget.
 */
export class MalformedResponseError extends ProviderError {
  readonly malformed = true;
  constructor(message: string) {
    super(message, "provider_error", { retryable: true });
    this.name = "MalformedResponseError";
  }
}

export function isMalformed(error: unknown): boolean {
  return error instanceof MalformedResponseError;
}

/**
 * Every API key of a model is cooling down after a 429 (or out of its per-key budget), so
 * no request was sent. The resilience layer waits `retryAfterMs` for the key without
 * spending a retry attempt (the call never reached the server), within the policy's wait
 * limit.
 */
export class KeyWaitError extends ProviderError {
  readonly keyWait = true;
  constructor(message: string, retryAfterMs: number) {
    super(message, "rate_limit", { retryable: true, retryAfterMs });
    this.name = "KeyWaitError";
  }
}

export function isKeyWait(error: unknown): error is KeyWaitError {
  return error instanceof KeyWaitError;
}

/** Minimal header reader, satisfied by fetch `Headers` and the SDKs' header objects. */
export interface HeaderReader {
  get(name: string): string | null | undefined;
}

const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * Milliseconds the server asked us to wait: `retry-after-ms` (OpenAI), else `retry-after`
 * as delta-seconds or an HTTP date (RFC 9110). Undefined when absent or unparseable.
 */
export function parseRetryAfter(headers: HeaderReader | undefined | null, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms != null && ms.trim() !== "" && Number.isFinite(Number(ms))) return clampDelay(Number(ms));
  const value = headers.get("retry-after");
  if (value == null || value.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return clampDelay(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : clampDelay(date - nowMs);
}

/** Google RPC `RetryInfo.retryDelay` ("30s", "1.5s") to milliseconds. */
export function parseDurationSeconds(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match ? clampDelay(Number(match[1]) * 1000) : undefined;
}

function clampDelay(ms: number): number {
  return Math.min(Math.max(0, Math.ceil(ms)), MAX_RETRY_AFTER_MS);
}

export interface HttpFailure {
  provider: string;
  status: number;
  message: string;
  retryAfterMs?: number;
  /** Set by the provider when the body says what kind of failure it is. */
  bucket?: FailureBucket;
  retryable?: boolean;
}

/**
 * The default status mapping: 429 rate_limit, 408/504 timeout, 5xx provider_error (all
 * retryable); 401/403 auth; other 4xx provider_error, not retryable. Providers pass `bucket`/`retryable`
 * to override from the body (context length, content filter, quota exhausted).
 */
export function httpError(failure: HttpFailure): ProviderError {
  const { status } = failure;
  const bucket = failure.bucket ?? defaultBucket(status);
  const retryable = failure.retryable ?? (status === 429 || status === 408 || status >= 500);
  const message = failure.message.replace(/^\d{3} /, "");
  return new ProviderError(`${failure.provider}: HTTP ${status}: ${message}`, bucket, {
    retryable,
    status,
    retryAfterMs: failure.retryAfterMs,
  });
}

function defaultBucket(status: number): FailureBucket {
  if (status === 429) return "rate_limit";
  if (status === 401 || status === 403) return "auth";
  if (status === 408 || status === 504) return "timeout";
  return "provider_error";
}

/** A network failure before any HTTP status (refused, reset, DNS): retried as a timeout. */
export function connectionError(provider: string, message: string): ProviderError {
  return new ProviderError(`${provider}: connection failed: ${message}`, "timeout", { retryable: true });
}

export function contentFilterError(provider: string, detail: string): ProviderError {
  return new ProviderError(`${provider}: output blocked by the content filter (${detail})`, "content_filter", {
    retryable: false,
  });
}

/** True for the DOMException/SDK errors raised when an AbortSignal fires. */
export function isAbortLike(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === "AbortError" || error.name === "APIUserAbortError" || /aborted/i.test(error.message);
}

/**
 * When the caller's signal fired, the abort reason wins over whatever the SDK threw: the
 * resilience layer aborts with its own timeout ProviderError, so the bucket survives.
 */
export function abortReason(signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted) return undefined;
  return signal.reason instanceof Error
    ? signal.reason
    : new ProviderError("request aborted", "other", { retryable: false });
}

/** Context-length wording used by OpenAI-compatible servers, Anthropic and Gemini. */
export const CONTEXT_TOO_LONG_PATTERN =
  /context[_ ]length|maximum context|prompt is too long|too many tokens|input token count.*exceeds|exceeds the maximum number of tokens/i;
