/**
 * Bounds shared by a spec field and the CLI option that overrides it, so both refuse the same
 * values. Kept free of imports: the CLI's entry point reads them without loading zod.
 */

/** execution.concurrency and --concurrency: trials in flight at once. */
export const MAX_CONCURRENCY = 1024;
/** --workers and --rate-share: worker processes sharing a run's concurrency and rate limits. */
export const MAX_WORKERS = MAX_CONCURRENCY;
/** --lease-seconds: a claimed trial's lease, at most a day. */
export const MAX_LEASE_SECONDS = 86_400;
/** --max-entry-mb: an inflated zip entry or a log read as text is decoded as one string (V8: about 512 MiB). */
export const MAX_ENTRY_MB = 512;
/** --max-inflated-mb: all inflated entries of one zipped log. */
export const MAX_INFLATED_MB = 65_536;
