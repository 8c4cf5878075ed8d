/**
 * OpenAI and OpenAI-compatible servers (vLLM, Ollama, Together, OpenRouter via base_url),
 * through the official SDK with its retries off: the resilience layer owns retries.
 *
 * spec.options (all optional):
 * - completions_logprobs: true declares continuation_logprobs, computed with the legacy
 *   completions endpoint (echo + logprobs + max_tokens 0), which vLLM and most
 *   OpenAI-compatible servers support; api.openai.com no longer serves it for chat models.
 * - top_k: true sends top_k (compatible servers accept it; OpenAI itself does not).
 * - reasoning: true/false overrides the name-based reasoning-model detection.
 * - rpm_per_key: requests per minute allowed on each rotated key.
 *
 * Keys: api_key_env, else OPENAI_API_KEY. With a base_url and no api_key_env the server is
 * assumed to need no auth, so an OpenAI key is never sent to a third-party server.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { Completion } from "openai/resources/completions";
import type {
  Capability,
  ChatMessage,
  ContinuationLogprob,
  ContinuationLogprobRequest,
  ContinuationLogprobResult,
  GenerateRequest,
  GenerateResult,
  GenerationParams,
  Provider,
  ToolCall,
  ToolSpec,
} from "../contracts/provider.js";
import type { ModelSpec } from "../contracts/spec.js";
import { InputError, ProviderError } from "../core/errors.js";
import {
  CONTEXT_TOO_LONG_PATTERN,
  connectionError,
  contentFilterError,
  httpError,
  MalformedResponseError,
  parseRetryAfter,
} from "./errors.js";
import { callWithKey, KeyPool, type RemoteProviderDeps, resolveApiKeys } from "./keys.js";
import { applyParamPolicy, fromSpecParamNames, isOpenAIReasoningModel, type PolicyTraits } from "./policy.js";
import type { ProviderEnv, ProviderFactory } from "./types.js";
import { openaiBatchApi } from "./batch/openai-batch.js";
import { OpenAIOptionsSchema } from "./options.js";

const NAME = "openai";
const DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** Placeholder bearer for keyless local servers (the SDK insists on some key). */
const NO_AUTH_KEY = "no-key";

interface OpenAIOptions {
  completionsLogprobs: boolean;
  traits: PolicyTraits;
  rpmPerKey?: number;
}

/** The options as OpenAIOptionsSchema (options.ts) checks them; the spec loader runs the same check. */
function readOptions(spec: ModelSpec): OpenAIOptions {
  const parsed = OpenAIOptionsSchema.safeParse(spec.options ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
    throw new InputError(`model '${spec.id}' (openai): invalid options: ${detail}`);
  }
  const o = parsed.data;
  return {
    completionsLogprobs: o.completions_logprobs ?? false,
    traits: { topK: o.top_k, reasoning: o.reasoning },
    rpmPerKey: o.rpm_per_key,
  };
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "tool":
      return { role: "tool", content: message.content, tool_call_id: message.toolCallId ?? "" };
    case "assistant":
      return message.toolCalls?.length
        ? {
            role: "assistant",
            content: message.content || null,
            tool_calls: message.toolCalls.map((c) => ({
              id: c.id,
              type: "function" as const,
              function: { name: c.name, arguments: c.arguments },
            })),
          }
        : { role: "assistant", content: message.content };
  }
}

function toOpenAITool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

function chatBody(
  request: GenerateRequest,
  params: GenerationParams,
  reasoning: boolean,
): ChatCompletionCreateParamsNonStreaming {
  const body: ChatCompletionCreateParamsNonStreaming & { top_k?: number } = {
    model: request.model,
    messages: request.messages.map(toOpenAIMessage),
  };
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.topP !== undefined) body.top_p = params.topP;
  if (params.topK !== undefined) body.top_k = params.topK;
  if (params.seed !== undefined) body.seed = params.seed;
  if (params.stop !== undefined) body.stop = params.stop;
  // Reasoning models take max_completion_tokens; compatible servers know max_tokens best.
  if (params.maxTokens !== undefined) {
    if (reasoning) body.max_completion_tokens = params.maxTokens;
    else body.max_tokens = params.maxTokens;
  }
  if (request.tools?.length) body.tools = request.tools.map(toOpenAITool);
  return body;
}

function parseChat(completion: unknown): { text: string; toolCalls?: ToolCall[]; finish?: string } & Usage {
  const c = completion as ChatCompletion;
  const choice = typeof c === "object" && c !== null && Array.isArray(c.choices) ? c.choices[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    throw new MalformedResponseError("openai: chat completion without choices[0].message");
  }
  if (choice.finish_reason === "content_filter") throw contentFilterError(NAME, "finish_reason content_filter");
  const toolCalls = (choice.message.tool_calls ?? [])
    .filter((t) => t.type === "function")
    .map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments }));
  return {
    text: choice.message.content ?? "",
    toolCalls: toolCalls.length ? toolCalls : undefined,
    finish: choice.finish_reason ?? undefined,
    ...usageOf(c.usage),
  };
}

interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
}

function usageOf(
  usage:
    | {
        prompt_tokens?: number;
        completion_tokens?: number;
        prompt_tokens_details?: { cached_tokens?: number } | null;
      }
    | undefined
    | null,
): Usage {
  // Cached prompt tokens are part of prompt_tokens (prompt_tokens_details.cached_tokens).
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    ...(typeof cached === "number" ? { cacheReadTokens: cached } : {}),
  };
}

/** SDK errors -> failure buckets (see errors.ts for the status defaults). */
export function classifyOpenAIError(error: unknown, nowMs: number): unknown {
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError("openai: request timed out", "timeout", { retryable: true });
  }
  if (error instanceof APIConnectionError) return connectionError(NAME, error.message);
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const code = typeof error.code === "string" ? error.code : undefined;
    const base = {
      provider: NAME,
      status,
      message: error.message,
      retryAfterMs: parseRetryAfter(error.headers, nowMs),
    };
    if (code === "context_length_exceeded" || (status === 400 && CONTEXT_TOO_LONG_PATTERN.test(error.message))) {
      return httpError({ ...base, bucket: "context_too_long", retryable: false });
    }
    if (code === "content_filter" || code === "content_policy_violation") {
      return httpError({ ...base, bucket: "content_filter", retryable: false });
    }
    // A 429 for an exhausted quota will not clear by waiting.
    if (status === 429 && code === "insufficient_quota") return httpError({ ...base, retryable: false });
    return httpError(base);
  }
  if (error instanceof SyntaxError)
    return new MalformedResponseError(`openai: response body is not JSON (${error.message})`);
  return error;
}

/** Continuation logprobs from one echoed completion choice, selected by character offsets. */
export function continuationFromEcho(prompt: string, continuation: string, choice: unknown): ContinuationLogprob {
  const lp = (choice as Completion["choices"][number] | undefined)?.logprobs;
  if (!lp || !Array.isArray(lp.tokens) || !Array.isArray(lp.token_logprobs) || !Array.isArray(lp.text_offset)) {
    throw new ProviderError(
      "openai: the server returned no echo logprobs; unset options.completions_logprobs for this server",
      "provider_error",
      { retryable: false },
    );
  }
  // Offsets count Unicode code points (the servers are Python), not UTF-16 units.
  const start = [...prompt].length;
  const end = start + [...continuation].length;
  const offsets = lp.text_offset;
  const tokens = [];
  for (let i = 0; i < lp.tokens.length; i++) {
    const tokenEnd = i + 1 < offsets.length ? offsets[i + 1] : Number.POSITIVE_INFINITY;
    // A token straddling the boundary belongs to the continuation (its probability covers it).
    if (offsets[i] >= end || tokenEnd <= start) continue;
    const logprob = lp.token_logprobs[i];
    if (typeof logprob !== "number") {
      throw new ProviderError("openai: continuation token without a logprob (empty prompt?)", "provider_error", {
        retryable: false,
      });
    }
    tokens.push({ token: lp.tokens[i], logprob });
  }
  if (tokens.length === 0) throw new MalformedResponseError("openai: no tokens cover the continuation");
  return { continuation, tokens, total: tokens.reduce((s, t) => s + t.logprob, 0) };
}

export function createOpenAIProvider(spec: ModelSpec, env: ProviderEnv, deps: RemoteProviderDeps = {}): Provider {
  const now = deps.now ?? Date.now;
  const options = readOptions(spec);
  const keyless = spec.base_url !== undefined && spec.api_key_env === undefined;
  const keys = keyless
    ? [NO_AUTH_KEY]
    : resolveApiKeys({
        provider: NAME,
        modelId: spec.id,
        apiKeyEnv: spec.api_key_env,
        defaultEnv: ["OPENAI_API_KEY"],
        env,
      });
  const clients = keys.map(
    (apiKey) =>
      new OpenAI({
        apiKey,
        baseURL: spec.base_url ?? DEFAULT_BASE_URL,
        organization: env.OPENAI_ORG_ID ?? null,
        project: env.OPENAI_PROJECT_ID ?? null,
        maxRetries: 0,
        timeout: 600_000,
        logLevel: "off",
      }),
  );
  const pool = new KeyPool(clients, { now, perKeyRpm: options.rpmPerKey });
  const extraDrops = fromSpecParamNames(spec.drop_params);
  const classify = (e: unknown) => classifyOpenAIError(e, now());
  const reasoningModel = (model: string) => options.traits.reasoning ?? isOpenAIReasoningModel(model);

  // One preparation and one reading of a chat completion, shared by the synchronous call and
  // the batch API, so a batched call is stored exactly as a synchronous one.
  const prepare = (request: GenerateRequest) => {
    const { params, dropped } = applyParamPolicy(NAME, request.model, request.params, {
      extraDrops,
      traits: options.traits,
    });
    return { body: chatBody(request, params, reasoningModel(request.model)), params, dropped };
  };
  const toResult = (raw: unknown, prepared: ReturnType<typeof prepare>, slot?: number): GenerateResult => {
    const parsed = parseChat(raw);
    return {
      text: parsed.text,
      toolCalls: parsed.toolCalls,
      usage: {
        inputTokens: parsed.inputTokens,
        outputTokens: parsed.outputTokens,
        ...(parsed.cacheReadTokens !== undefined ? { cacheReadTokens: parsed.cacheReadTokens } : {}),
      },
      finishReason: parsed.finish?.toLowerCase(),
      paramsUsed: prepared.params,
      droppedParams: prepared.dropped,
      keySlot: slot,
      ...reportedRevision(raw),
    };
  };

  const generate = async (request: GenerateRequest): Promise<GenerateResult> => {
    const prepared = prepare(request);
    const { result, slot } = await callWithKey(
      pool,
      request.signal,
      (client) => client.chat.completions.create(prepared.body, { signal: request.signal }),
      classify,
    );
    return toResult(result, prepared, slot);
  };

  const continuationLogprobs = async (request: ContinuationLogprobRequest): Promise<ContinuationLogprobResult> => {
    const prompts = request.continuations.map((c) => request.prompt + c);
    const { result } = await callWithKey(
      pool,
      request.signal,
      (client) =>
        client.completions.create(
          { model: request.model, prompt: prompts, echo: true, logprobs: 1, max_tokens: 0, temperature: 0 },
          { signal: request.signal },
        ),
      classify,
    );
    const choices = (result as Completion | undefined)?.choices;
    if (!Array.isArray(choices) || choices.length !== prompts.length) {
      throw new MalformedResponseError(`openai: expected ${prompts.length} completion choices`);
    }
    const byIndex = [...choices].sort((a, b) => a.index - b.index);
    return {
      continuations: request.continuations.map((c, i) => continuationFromEcho(request.prompt, c, byIndex[i])),
      usage: usageOf(result.usage),
      ...reportedRevision(result),
    };
  };

  const provider: Provider = {
    name: NAME,
    simulated: false,
    capabilities: (model: string) => openaiCapabilities(reasoningModel(model), options.completionsLogprobs),
    generate,
    // Batches go through the first key: a batch is polled and read with the key that created it.
    batch: openaiBatchApi({ client: clients[0], prepare, toResult, classify }),
  };
  if (options.completionsLogprobs) provider.continuationLogprobs = continuationLogprobs;
  return provider;
}

/**
 * The model version the server says answered ("gpt-4o-2024-08-06", with "+<system_fingerprint>"
 * when it gives one): recorded on the trial, since an alias ("gpt-4o") may move between versions.
 */
function reportedRevision(result: unknown): { modelRevision?: string } {
  const body = result as { model?: unknown; system_fingerprint?: unknown } | undefined;
  if (typeof body?.model !== "string" || body.model === "") return {};
  const fingerprint =
    typeof body.system_fingerprint === "string" && body.system_fingerprint !== "" ? `+${body.system_fingerprint}` : "";
  return { modelRevision: `${body.model}${fingerprint}` };
}

function openaiCapabilities(reasoning: boolean, completionsLogprobs: boolean): ReadonlySet<Capability> {
  const caps: Capability[] = ["generate", "system_prompt", "tools", "seed"];
  if (!reasoning) caps.push("temperature");
  if (completionsLogprobs) caps.push("continuation_logprobs");
  return new Set(caps);
}

export const openaiProvider: ProviderFactory = (spec, env) => createOpenAIProvider(spec, env);
