/**
 * What the three batch adapters share: how a provider prepares a request and reads its answer
 * (the functions its synchronous call uses), and reading a raw outcome through them, so a batched
 * call is stored exactly as the synchronous one would be.
 */
import type { BatchOutcome, GenerateRequest, GenerateResult, RawBatchOutcome } from "../../contracts/provider.js";

export interface BatchCodec<Prepared, Client> {
  client: Client;
  prepare(request: GenerateRequest): Prepared;
  toResult(raw: unknown, prepared: Prepared): GenerateResult;
  classify(error: unknown): unknown;
}

/** A request without its abort signal: the batch outlives the call that queued it. */
export function detached(request: GenerateRequest): GenerateRequest {
  const { signal: _signal, ...rest } = request;
  return rest;
}

/**
 * A response read by the synchronous parser (a body it refuses is the request's error); an
 * error turned into the SDK's own error by `toSdkError` and classified as the synchronous one.
 */
export function decodeWith<Prepared>(
  codec: BatchCodec<Prepared, unknown>,
  outcome: RawBatchOutcome & { kind: "response" | "error" },
  request: GenerateRequest,
  toSdkError: (outcome: RawBatchOutcome & { kind: "error" }) => unknown,
): BatchOutcome {
  if (outcome.kind === "error") return { kind: "error", error: codec.classify(toSdkError(outcome)) };
  try {
    return { kind: "result", result: codec.toResult(outcome.body, codec.prepare(detached(request))) };
  } catch (error) {
    return { kind: "error", error: codec.classify(error) };
  }
}

/**
 * How far before its recorded time a lost submission's batch may carry a provider timestamp: the
 * provider's clock and ours may disagree. Lookups read back this far.
 */
export const LOOKUP_SKEW_MS = 10 * 60_000;

/** The name a submission's token gives its batch where the API has one (OpenAI's file, Gemini's display name). */
export function submissionTag(token: string | undefined): string {
  return token ? `parallax-${token}` : "parallax";
}
