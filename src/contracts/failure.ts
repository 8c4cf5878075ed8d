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
  /** The provider's 100-page PDF input limit (GAIA App. D). */
  "pdf_page_limit",
  /** A provider reply its own SDK could not deserialise (GAIA App. B/D); the robust slice drops these. */
  "provider_serialisation_bug",
  /** A dispatch refused before the model ran, with zero tokens (credit exhaustion, App. D): quarantined, never scored. */
  "zero_token_rejection",
  /**
   * A tool call the sandbox itself failed (bubblewrap missing or broken, its setup failing): the
   * observation was not the model's doing, so the trial errors and the next run retries it.
   */
  "sandbox",
  "other",
] as const;

export type FailureBucket = (typeof FAILURE_BUCKETS)[number];
