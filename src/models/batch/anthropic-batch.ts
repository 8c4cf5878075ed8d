/**
 * Anthropic Message Batches through the official SDK: messages.batches.create with the
 * requests inline (custom_id + the Messages params), retrieve until processing_status is
 * "ended", then results (the JSONL stream): succeeded (the message), errored (the error body
 * the synchronous call would have received), expired or canceled (not run).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { APIError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type {
  BatchStatus,
  DroppedParam,
  GenerationParams,
  ProviderBatchApi,
  RawBatchOutcome,
} from "../../contracts/provider.js";
import { type BatchCodec, decodeWith, detached } from "./common.js";

type Prepared = { body: MessageCreateParamsNonStreaming; params: GenerationParams; dropped: DroppedParam[] };

/** The HTTP status each error type has on the synchronous API, so both classify alike. */
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

function sdkError(outcome: RawBatchOutcome & { kind: "error" }): unknown {
  const body = outcome.body as { error?: { type?: string; message?: string } } | undefined;
  const status = outcome.status ?? ERROR_STATUS[body?.error?.type ?? ""] ?? 500;
  return APIError.generate(status, body, body?.error?.message, new Headers());
}

export function anthropicBatchApi(codec: BatchCodec<Prepared, Anthropic>): ProviderBatchApi {
  const { client } = codec;
  return {
    // ScaffoldSafety App. J (note c): Message Batches of at most 10K requests.
    maxRequests: 10_000,
    classify: codec.classify,
    decode: (outcome, request) => decodeWith(codec, outcome, request, sdkError),
    async submit(_model, entries, signal) {
      const requests = entries.map((entry) => ({
        custom_id: entry.customId,
        params: codec.prepare(detached(entry.request)).body,
      }));
      const batch = await client.messages.batches.create({ requests }, { signal });
      return batch.id;
    },
    async status(batchId, signal): Promise<BatchStatus> {
      const batch = await client.messages.batches.retrieve(batchId, {}, { signal });
      return {
        state: batch.processing_status === "ended" ? "ended" : "running",
        providerStatus: batch.processing_status,
      };
    },
    async results(batchId, signal) {
      const outcomes = new Map<string, RawBatchOutcome>();
      for await (const line of await client.messages.batches.results(batchId, {}, { signal })) {
        const result = line.result;
        if (result.type === "succeeded") outcomes.set(line.custom_id, { kind: "response", body: result.message });
        else if (result.type === "errored") outcomes.set(line.custom_id, { kind: "error", body: result.error });
        else outcomes.set(line.custom_id, { kind: "unfinished", reason: result.type });
      }
      return outcomes;
    },
  };
}
