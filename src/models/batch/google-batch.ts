/**
 * Gemini batch mode through @google/genai: batches.create with the requests inlined (each with
 * its custom id as metadata.key), batches.get until the job ends, and the inlined responses of
 * the ended job: a response as the synchronous call's, or the request's error (google.rpc.Status).
 * An expired or cancelled job's requests without a response were not run. A submission's token
 * is the job's display name; `find` lists the jobs for it.
 */
import {
  ApiError,
  type BatchJob,
  type Content,
  type GenerateContentConfig,
  type GoogleGenAI,
  JobState,
} from "@google/genai";
import type {
  BatchStatus,
  DroppedParam,
  GenerationParams,
  ProviderBatchApi,
  RawBatchOutcome,
} from "../../contracts/provider.js";
import { ProviderError } from "../../core/errors.js";
import { type BatchCodec, decodeWith, detached, LOOKUP_SKEW_MS, submissionTag } from "./common.js";

type Prepared = {
  contents: Content[];
  config: GenerateContentConfig;
  params: GenerationParams;
  dropped: DroppedParam[];
};

const ENDED = new Set<string>([
  JobState.JOB_STATE_SUCCEEDED,
  JobState.JOB_STATE_FAILED,
  JobState.JOB_STATE_CANCELLED,
  JobState.JOB_STATE_EXPIRED,
  JobState.JOB_STATE_PARTIALLY_SUCCEEDED,
]);

/** The error body the synchronous API would have sent, so the SDK's ApiError classifies alike. */
function sdkError(outcome: RawBatchOutcome & { kind: "error" }): unknown {
  if (outcome.body === undefined) {
    return new ProviderError(`google: batch failed: ${outcome.message ?? ""}`, "provider_error", { retryable: false });
  }
  return new ApiError({ message: JSON.stringify({ error: outcome.body }), status: outcome.status ?? 500 });
}

export function googleBatchApi(codec: BatchCodec<Prepared, GoogleGenAI>): ProviderBatchApi {
  const { client } = codec;
  // The ended job read by status() already holds the inlined responses: results() reuses it
  // instead of reading the whole job a second time.
  const endedJobs = new Map<string, BatchJob>();
  return {
    classify: codec.classify,
    decode: (outcome, request) => decodeWith(codec, outcome, request, sdkError),
    async submit(model, entries, signal, token) {
      const src = entries.map((entry) => {
        const { contents, config } = codec.prepare(detached(entry.request));
        return { contents, config, metadata: { key: entry.customId } };
      });
      const job = await client.batches.create({
        model,
        src,
        config: { displayName: submissionTag(token), abortSignal: signal },
      });
      if (!job.name)
        throw new ProviderError("google: batch created without a name", "provider_error", { retryable: true });
      return job.name;
    },
    async find(token, lookup, signal) {
      const name = submissionTag(token);
      const oldest = lookup.since - LOOKUP_SKEW_MS;
      // The list's order is not documented: every page is read.
      for await (const job of await client.batches.list({ config: { pageSize: 100, abortSignal: signal } })) {
        if (job.displayName !== name || !job.name) continue;
        if (job.createTime && Date.parse(job.createTime) < oldest) continue;
        return { state: "found", batchId: job.name };
      }
      return { state: "absent" };
    },
    async status(batchId, signal): Promise<BatchStatus> {
      const job = await client.batches.get({ name: batchId, config: { abortSignal: signal } });
      const state = String(job.state ?? "JOB_STATE_UNSPECIFIED");
      if (!ENDED.has(state)) return { state: "running", providerStatus: state };
      endedJobs.set(batchId, job);
      return { state: "ended", providerStatus: state };
    },
    async results(batchId, signal) {
      const job =
        endedJobs.get(batchId) ?? (await client.batches.get({ name: batchId, config: { abortSignal: signal } }));
      endedJobs.delete(batchId);
      const outcomes = new Map<string, RawBatchOutcome>();
      for (const inlined of job.dest?.inlinedResponses ?? []) {
        const key = inlined.metadata?.key;
        if (typeof key !== "string") continue;
        if (inlined.error) {
          outcomes.set(key, { kind: "error", status: inlined.error.code, body: inlined.error });
        } else outcomes.set(key, { kind: "response", body: inlined.response });
      }
      return outcomes;
    },
  };
}
