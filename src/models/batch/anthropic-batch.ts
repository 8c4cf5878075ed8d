/**
 * Anthropic Message Batches through the official SDK: messages.batches.create with the
 * requests inline (custom_id + the Messages params), retrieve until processing_status is
 * "ended", then results (the JSONL stream): succeeded (the message), errored (the error body
 * the synchronous call would have received), expired or canceled (not run).
 *
 * A message batch has no metadata, and its requests can be read only once it has ended (as its
 * results). So a submission's token goes into every custom id (`<custom id>_<token>`), and `find`
 * lists the batches created since the submission with as many requests, skips those the store
 * holds, and reads the results of each ended one for the token; one still running that may be
 * it leaves the lookup undecided until it ends.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { APIError } from "@anthropic-ai/sdk";
import type { MessageBatch, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import type {
  BatchStatus,
  DroppedParam,
  GenerationParams,
  ProviderBatchApi,
  RawBatchOutcome,
} from "../../contracts/provider.js";
import { type BatchCodec, decodeWith, detached, LOOKUP_SKEW_MS } from "./common.js";

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

/** The custom id sent for a request: ours, tagged with the submission's token. */
function wireId(customId: string, token: string | undefined): string {
  return token ? `${customId}_${token}` : customId;
}

/** Our custom id from the one sent (ours hold no "_"). */
function ownId(wire: string): string {
  const cut = wire.indexOf("_");
  return cut < 0 ? wire : wire.slice(0, cut);
}

function requestTotal(batch: MessageBatch): number {
  const c = batch.request_counts;
  return c.processing + c.succeeded + c.errored + c.canceled + c.expired;
}

export function anthropicBatchApi(codec: BatchCodec<Prepared, Anthropic>): ProviderBatchApi {
  const { client } = codec;
  // Results read by a lookup (to see the token) are handed to results() instead of read again.
  const fetched = new Map<string, Map<string, RawBatchOutcome>>();

  /** An ended batch's outcomes by our custom id; undefined when `token` is given and not the batch's. */
  async function readResults(batchId: string, token: string | undefined, signal?: AbortSignal) {
    const outcomes = new Map<string, RawBatchOutcome>();
    for await (const line of await client.messages.batches.results(batchId, {}, { signal })) {
      if (token && !line.custom_id.endsWith(`_${token}`)) return undefined;
      token = undefined; // one line decides: a batch's requests share their submission's token
      const result = line.result;
      const id = ownId(line.custom_id);
      if (result.type === "succeeded") outcomes.set(id, { kind: "response", body: result.message });
      else if (result.type === "errored") outcomes.set(id, { kind: "error", body: result.error });
      else outcomes.set(id, { kind: "unfinished", reason: result.type });
    }
    return outcomes;
  }

  return {
    // ScaffoldSafety App. J (note c): Message Batches of at most 10K requests.
    maxRequests: 10_000,
    classify: codec.classify,
    decode: (outcome, request) => decodeWith(codec, outcome, request, sdkError),
    async submit(_model, entries, signal, token) {
      const requests = entries.map((entry) => ({
        custom_id: wireId(entry.customId, token),
        params: codec.prepare(detached(entry.request)).body,
      }));
      const batch = await client.messages.batches.create({ requests }, { signal });
      return batch.id;
    },
    async find(token, lookup, signal) {
      const oldest = lookup.since - LOOKUP_SKEW_MS;
      const candidates: MessageBatch[] = [];
      // Newest first: past the submission's time (less the clock skew) it cannot be there.
      for await (const batch of client.messages.batches.list({ limit: 100 }, { signal })) {
        if (Date.parse(batch.created_at) < oldest) break;
        if (requestTotal(batch) === lookup.requests) candidates.push(batch);
      }
      const recorded = await lookup.recorded(candidates.map((b) => b.id));
      let undecided = false;
      for (const batch of candidates) {
        if (recorded.has(batch.id)) continue;
        if (batch.processing_status !== "ended") {
          undecided = true;
          continue;
        }
        const outcomes = await readResults(batch.id, token, signal);
        if (!outcomes) continue;
        fetched.set(batch.id, outcomes);
        return { state: "found", batchId: batch.id };
      }
      return { state: undecided ? "undecided" : "absent" };
    },
    async status(batchId, signal): Promise<BatchStatus> {
      const batch = await client.messages.batches.retrieve(batchId, {}, { signal });
      return {
        state: batch.processing_status === "ended" ? "ended" : "running",
        providerStatus: batch.processing_status,
      };
    },
    async results(batchId, signal) {
      const known = fetched.get(batchId);
      fetched.delete(batchId);
      return known ?? (await readResults(batchId, undefined, signal))!;
    },
  };
}
