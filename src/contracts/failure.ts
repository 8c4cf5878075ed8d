/**
 * Named failure buckets for errored trials (GAIA comparison, App. D): every errored trial
 * lands in exactly one, so completion accounting always sums.
 */
export const FAILURE_BUCKETS = [
  "rate_limit",
  "timeout",
  "context_too_long",
  "content_filter",
  "provider_error",
  "parse_error",
  /** 401/403: the key is wrong, revoked or lacks access; the run stops at the first one. */
  "auth",
  "other",
] as const;

export type FailureBucket = (typeof FAILURE_BUCKETS)[number];
