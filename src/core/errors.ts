import type { FailureBucket } from "../contracts/failure.js";

/** An error meant for the user: a clear message and the exit code the CLI should use. */
export class ParallaxError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "ParallaxError";
  }
}

/** Exit code when Ctrl-C (or SIGTERM) stopped a command that executes trials (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

/** Bad user input (spec, data, arguments): exit code 2. */
export class InputError extends ParallaxError {
  constructor(message: string) {
    super(message, 2);
    this.name = "InputError";
  }
}

/**
 * A failed provider call, classified into a failure bucket. `retryable` errors (rate limits,
 * timeouts, 5xx) are retried with backoff; the rest end the trial as errored.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly bucket: FailureBucket,
    readonly options: { retryable: boolean; status?: number; retryAfterMs?: number; cause?: unknown } = {
      retryable: false,
    },
  ) {
    super(message, { cause: options.cause });
    this.name = "ProviderError";
  }

  get retryable(): boolean {
    return this.options.retryable;
  }
}

/**
 * A tool call the sandbox failed for a reason of the machine's (bubblewrap missing or broken,
 * its setup failing), not the model's command: the trial errors in the "sandbox" bucket.
 */
export class SandboxFailure extends Error {
  readonly bucket = "sandbox" satisfies FailureBucket;

  constructor(tool: string, reason: string) {
    super(`tool call ${tool}: ${reason}`);
    this.name = "SandboxFailure";
  }
}
