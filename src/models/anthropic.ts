/**
 * Anthropic Messages API through the official SDK (retries off: the resilience layer owns
 * them). System messages become the top-level `system`; max_tokens is required (default
 * 1024); seed does not exist and top_p is dropped next to temperature (policy.ts).
 * No continuation logprobs: the API exposes none.
 *
 * Keys: api_key_env, else ANTHROPIC_API_KEY. spec.options.rpm_per_key limits each key.
 */
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type {
  Capability,
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  GenerationParams,
  Provider,
  TokenUsage,
  ToolCall,
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
import { applyParamPolicy, fromSpecParamNames } from "./policy.js";
import type { ProviderEnv, ProviderFactory } from "./types.js";
import { anthropicBatchApi } from "./batch/anthropic-batch.js";

const NAME = "anthropic";
const DEFAULT_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

const STOP_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  pause_turn: "pause_turn",
};

function parseArguments(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value : {};
  } catch {
    return {};
  }
}

function blocksOf(message: ChatMessage): ContentBlockParam[] {
  if (message.role === "tool") {
    return [{ type: "tool_result", tool_use_id: message.toolCallId ?? "", content: message.content }];
  }
  const blocks: ContentBlockParam[] = [];
  // The API rejects empty text blocks; an assistant turn may be tool calls only.
  if (message.content !== "" || !message.toolCalls?.length) blocks.push({ type: "text", text: message.content });
  for (const call of message.toolCalls ?? []) {
    blocks.push({ type: "tool_use", id: call.id, name: call.name, input: parseArguments(call.arguments) });
  }
  return blocks;
}

/** Splits out the system prompt and merges consecutive same-role turns (tool results are user turns). */
export function toAnthropicMessages(messages: readonly ChatMessage[]): { system?: string; messages: MessageParam[] } {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  const out: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    const role = message.role === "assistant" ? "assistant" : "user";
    const last = out[out.length - 1];
    if (last && last.role === role) (last.content as ContentBlockParam[]).push(...blocksOf(message));
    else out.push({ role, content: blocksOf(message) });
  }
  return { system: system.length ? system.join("\n\n") : undefined, messages: out };
}

function messageBody(request: GenerateRequest, params: GenerationParams): MessageCreateParamsNonStreaming {
  const { system, messages } = toAnthropicMessages(request.messages);
  const body: MessageCreateParamsNonStreaming = {
    model: request.model,
    max_tokens: params.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system !== undefined) body.system = system;
  if (params.temperature !== undefined) body.temperature = params.temperature;
  if (params.topP !== undefined) body.top_p = params.topP;
  if (params.topK !== undefined) body.top_k = params.topK;
  if (params.stop !== undefined) body.stop_sequences = params.stop;
  if (request.tools?.length) {
    body.tools = request.tools.map(
      (t): Tool => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters as Tool["input_schema"],
      }),
    );
  }
  return body;
}

function parseMessage(raw: unknown): {
  text: string;
  toolCalls?: ToolCall[];
  finish?: string;
  usage: Usage;
  modelRevision?: string;
} {
  const m = raw as Message;
  if (typeof m !== "object" || m === null || !Array.isArray(m.content) || typeof m.usage !== "object") {
    throw new MalformedResponseError("anthropic: message without content[] and usage");
  }
  if (m.stop_reason === "refusal") throw contentFilterError(NAME, "stop_reason refusal");
  const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const toolCalls = m.content.flatMap((b) =>
    b.type === "tool_use" ? [{ id: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}) }] : [],
  );
  const u = m.usage;
  // Cached prompt tokens are still prompt tokens (and billed, at other rates).
  const inputTokens = u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
  return {
    text,
    toolCalls: toolCalls.length ? toolCalls : undefined,
    finish: m.stop_reason ? (STOP_REASONS[m.stop_reason] ?? m.stop_reason) : undefined,
    usage: {
      inputTokens,
      outputTokens: u.output_tokens,
      ...cacheUsage(u.cache_read_input_tokens, u.cache_creation_input_tokens),
    },
    // The dated model that answered ("claude-sonnet-4-5-20250929"): an alias may move between versions.
    ...(typeof m.model === "string" && m.model !== "" ? { modelRevision: m.model } : {}),
  };
}

/** The prompt-cache counts as the wire reports them (absent or null: not reported). */
function cacheUsage(read: number | null | undefined, write: number | null | undefined): Partial<Usage> {
  return {
    ...(typeof read === "number" ? { cacheReadTokens: read } : {}),
    ...(typeof write === "number" ? { cacheWriteTokens: write } : {}),
  };
}

type Usage = TokenUsage;

/** The body is {"type":"error","error":{"type":...,"message":...}}. */
function errorDetail(error: APIError): { type?: string; message: string } {
  const inner = (error.error as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
  const message = typeof inner?.message === "string" ? inner.message : error.message;
  return { type: typeof inner?.type === "string" ? inner.type : (error.type ?? undefined), message };
}

export function classifyAnthropicError(error: unknown, nowMs: number): unknown {
  if (error instanceof APIConnectionTimeoutError) {
    return new ProviderError("anthropic: request timed out", "timeout", { retryable: true });
  }
  if (error instanceof APIConnectionError) return connectionError(NAME, error.message);
  if (error instanceof APIError && error.status !== undefined) {
    const { type, message } = errorDetail(error);
    const status = error.status;
    const base = {
      provider: NAME,
      status,
      message: type ? `${type}: ${message}` : message,
      retryAfterMs: parseRetryAfter(error.headers, nowMs),
    };
    if (status === 413 || (status === 400 && CONTEXT_TOO_LONG_PATTERN.test(message))) {
      return httpError({ ...base, bucket: "context_too_long", retryable: false });
    }
    // 529 overloaded_error falls in the retryable 5xx default.
    return httpError(base);
  }
  if (error instanceof SyntaxError) {
    return new MalformedResponseError(`anthropic: response body is not JSON (${error.message})`);
  }
  return error;
}

function readRpmPerKey(spec: ModelSpec): number | undefined {
  const rpm = spec.options?.rpm_per_key;
  if (rpm === undefined) return undefined;
  if (typeof rpm !== "number" || !(rpm > 0)) {
    throw new InputError(`model '${spec.id}': options.rpm_per_key must be a positive number`);
  }
  return rpm;
}

export function createAnthropicProvider(spec: ModelSpec, env: ProviderEnv, deps: RemoteProviderDeps = {}): Provider {
  const now = deps.now ?? Date.now;
  const keys = resolveApiKeys({
    provider: NAME,
    modelId: spec.id,
    apiKeyEnv: spec.api_key_env,
    defaultEnv: ["ANTHROPIC_API_KEY"],
    env,
  });
  const clients = keys.map(
    (apiKey) =>
      new Anthropic({
        apiKey,
        authToken: null,
        baseURL: spec.base_url ?? DEFAULT_BASE_URL,
        maxRetries: 0,
        // Explicit, so the SDK does not refuse large max_tokens without streaming.
        timeout: 600_000,
        logLevel: "off",
      }),
  );
  const pool = new KeyPool(clients, { now, perKeyRpm: readRpmPerKey(spec) });
  const extraDrops = fromSpecParamNames(spec.drop_params);

  // Shared by the synchronous call and the batch API, so a batched call is stored as a synchronous one.
  const prepare = (request: GenerateRequest) => {
    const { params, dropped } = applyParamPolicy(NAME, request.model, request.params, { extraDrops });
    return { body: messageBody(request, params), params, dropped };
  };
  const toResult = (raw: unknown, prepared: ReturnType<typeof prepare>, slot?: number): GenerateResult => {
    const parsed = parseMessage(raw);
    return {
      text: parsed.text,
      toolCalls: parsed.toolCalls,
      usage: parsed.usage,
      finishReason: parsed.finish,
      // max_tokens is always sent; record the value used.
      paramsUsed: { ...prepared.params, maxTokens: prepared.body.max_tokens },
      droppedParams: prepared.dropped,
      keySlot: slot,
      ...(parsed.modelRevision ? { modelRevision: parsed.modelRevision } : {}),
    };
  };
  const classify = (e: unknown) => classifyAnthropicError(e, now());

  const generate = async (request: GenerateRequest): Promise<GenerateResult> => {
    const prepared = prepare(request);
    const { result, slot } = await callWithKey(
      pool,
      request.signal,
      (client) => client.messages.create(prepared.body, { signal: request.signal }),
      classify,
    );
    return toResult(result, prepared, slot);
  };

  const caps: ReadonlySet<Capability> = new Set<Capability>(["generate", "system_prompt", "tools", "temperature"]);
  // Batches go through the first key: a batch is polled and read with the key that created it.
  const batch = anthropicBatchApi({ client: clients[0], prepare, toResult, classify });
  return { name: NAME, simulated: false, capabilities: () => caps, generate, batch };
}

export const anthropicProvider: ProviderFactory = (spec, env) => createAnthropicProvider(spec, env);
