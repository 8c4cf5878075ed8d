/**
 * The OpenAI Batch API through the official SDK: the requests as a JSONL file (files.create,
 * purpose "batch"), batches.create on /v1/chat/completions with a 24 h window, batches.retrieve,
 * and files.content of the output and error files. Each output line carries the HTTP status
 * and body the synchronous call would have had; an error-file line of code batch_expired or
 * batch_cancelled names a request the batch never ran. A submission's token goes into the batch's
 * metadata (and the input file's name); `find` lists the batches, newest first, for it.
 */
import type OpenAI from "openai";
import { APIError, toFile } from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type {
  BatchStatus,
  DroppedParam,
  GenerationParams,
  ProviderBatchApi,
  RawBatchOutcome,
} from "../../contracts/provider.js";
import { ProviderError } from "../../core/errors.js";
import { type BatchCodec, decodeWith, detached, LOOKUP_SKEW_MS, submissionTag } from "./common.js";

type Prepared = { body: ChatCompletionCreateParamsNonStreaming; params: GenerationParams; dropped: DroppedParam[] };

const ENDPOINT = "/v1/chat/completions";
/** Batches per list page (the API's largest). */
const PAGE = 100;
/** The batch metadata key holding the submission's token. */
const TOKEN_KEY = "parallax_submission";
const RUNNING = new Set(["validating", "in_progress", "finalizing", "cancelling"]);
/** Error-file codes of requests the batch did not run: resubmitted, not failed. */
const NOT_RUN = new Set(["batch_expired", "batch_cancelled"]);

interface OutputLine {
  custom_id?: string;
  response?: { status_code?: number; body?: unknown } | null;
  error?: { code?: string; message?: string } | null;
}

function rawOutcome(line: OutputLine): RawBatchOutcome {
  const status = line.response?.status_code;
  if (line.response && status === 200) return { kind: "response", body: line.response.body };
  if (line.response && status !== undefined) return { kind: "error", status, body: line.response.body };
  const code = line.error?.code ?? "unknown";
  if (NOT_RUN.has(code)) return { kind: "unfinished", reason: code };
  return { kind: "error", message: `${code}: ${line.error?.message ?? ""}` };
}

/** The error the synchronous call would have thrown (the SDK's own class), or a batch-level failure. */
function sdkError(outcome: RawBatchOutcome & { kind: "error" }): unknown {
  if (outcome.status === undefined) {
    return new ProviderError(`openai: batch request failed: ${outcome.message ?? ""}`, "provider_error", {
      retryable: true,
    });
  }
  const body = outcome.body as { error?: { message?: string } } | undefined;
  return APIError.generate(outcome.status, body, body?.error?.message, new Headers());
}

export function openaiBatchApi(codec: BatchCodec<Prepared, OpenAI>): ProviderBatchApi {
  const { client } = codec;
  return {
    // The Batch API's documented limit per input file.
    maxRequests: 50_000,
    classify: codec.classify,
    decode: (outcome, request) => decodeWith(codec, outcome, request, sdkError),
    async submit(_model, entries, signal, token) {
      const lines = entries.map((entry) =>
        JSON.stringify({
          custom_id: entry.customId,
          method: "POST",
          url: ENDPOINT,
          body: codec.prepare(detached(entry.request)).body,
        }),
      );
      const file = await client.files.create(
        { file: await toFile(Buffer.from(`${lines.join("\n")}\n`), `${submissionTag(token)}.jsonl`), purpose: "batch" },
        { signal },
      );
      const batch = await client.batches.create(
        {
          input_file_id: file.id,
          endpoint: ENDPOINT,
          completion_window: "24h",
          ...(token ? { metadata: { [TOKEN_KEY]: token } } : {}),
        },
        { signal },
      );
      return batch.id;
    },
    async find(token, lookup, signal) {
      const oldest = lookup.since - LOOKUP_SKEW_MS;
      let older = 0;
      for await (const batch of client.batches.list({ limit: PAGE }, { signal })) {
        if (batch.metadata?.[TOKEN_KEY] === token) return { state: "found", batchId: batch.id };
        // Listed newest first: a page's worth of batches older than the submission (less the
        // clock skew) in a row ends the search, even on a compatible server that orders loosely.
        older = batch.created_at * 1000 < oldest ? older + 1 : 0;
        if (older >= PAGE) break;
      }
      return { state: "absent" };
    },
    async status(batchId, signal): Promise<BatchStatus> {
      const batch = await client.batches.retrieve(batchId, { signal });
      return { state: RUNNING.has(batch.status) ? "running" : "ended", providerStatus: batch.status };
    },
    async results(batchId, signal) {
      const batch = await client.batches.retrieve(batchId, { signal });
      const outcomes = new Map<string, RawBatchOutcome>();
      for (const fileId of [batch.output_file_id, batch.error_file_id]) {
        if (!fileId) continue;
        const text = await (await client.files.content(fileId, { signal })).text();
        for (const line of text.split("\n")) {
          if (line.trim() === "") continue;
          const parsed = JSON.parse(line) as OutputLine;
          if (typeof parsed.custom_id === "string") outcomes.set(parsed.custom_id, rawOutcome(parsed));
        }
      }
      return outcomes;
    },
  };
}
