/**
 * Gemini API (AI Studio) through @google/genai. base_url, when set, replaces the endpoint
 * (httpOptions.baseUrl); options.api_version picks the version path (default v1beta).
 * Safety blocks (finishReason SAFETY & co., promptFeedback.blockReason) are content_filter
 * failures; 429 RESOURCE_EXHAUSTED honours the RetryInfo delay in the error body.
 *
 * Keys: api_key_env (several rotate: AI Studio limits are per key), else GEMINI_API_KEY or
 * GOOGLE_API_KEY. spec.options.rpm_per_key limits each key (25 on AI Studio free tier).
 */
import {
  ApiError,
  type Content,
  type FunctionDeclaration,
  type GenerateContentConfig,
  type GenerateContentResponse,
  GoogleGenAI,
  type Part,
} from "@google/genai";
import type {
  Capability,
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  GenerationParams,
  Provider,
  ToolCall,
} from "../contracts/provider.js";
import type { ModelSpec } from "../contracts/spec.js";
import { InputError } from "../core/errors.js";
import {
  CONTEXT_TOO_LONG_PATTERN,
  connectionError,
  contentFilterError,
  httpError,
  MalformedResponseError,
  parseDurationSeconds,
} from "./errors.js";
import { callWithKey, KeyPool, type RemoteProviderDeps, resolveApiKeys } from "./keys.js";
import { applyParamPolicy, fromSpecParamNames } from "./policy.js";
import type { ProviderEnv, ProviderFactory } from "./types.js";
import { googleBatchApi } from "./batch/google-batch.js";

const NAME = "google";

const BLOCKING_FINISH = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
]);

const FINISH_REASONS: Record<string, string> = { STOP: "stop", MAX_TOKENS: "length" };

function toolName(messages: readonly ChatMessage[], id: string | undefined): string {
  for (const m of messages) {
    const call = m.toolCalls?.find((c) => c.id === id);
    if (call) return call.name;
  }
  return id ?? "tool";
}

function partsOf(message: ChatMessage, all: readonly ChatMessage[]): Part[] {
  if (message.role === "tool") {
    const name = toolName(all, message.toolCallId);
    return [{ functionResponse: { id: message.toolCallId, name, response: { result: message.content } } }];
  }
  const parts: Part[] = [];
  if (message.content !== "" || !message.toolCalls?.length) parts.push({ text: message.content });
  for (const call of message.toolCalls ?? []) {
    parts.push({ functionCall: { id: call.id, name: call.name, args: parseArgs(call.arguments) } });
  }
  return parts;
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** System messages -> systemInstruction; assistant -> "model"; tool results are user turns. */
export function toGeminiContents(messages: readonly ChatMessage[]): { system?: string; contents: Content[] } {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  const contents: Content[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    const role = message.role === "assistant" ? "model" : "user";
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts!.push(...partsOf(message, messages));
    else contents.push({ role, parts: partsOf(message, messages) });
  }
  return { system: system.length ? system.join("\n\n") : undefined, contents };
}

function generationConfig(request: GenerateRequest, params: GenerationParams, system?: string): GenerateContentConfig {
  const config: GenerateContentConfig = {};
  if (system !== undefined) config.systemInstruction = system;
  if (params.temperature !== undefined) config.temperature = params.temperature;
  if (params.topP !== undefined) config.topP = params.topP;
  if (params.topK !== undefined) config.topK = params.topK;
  if (params.maxTokens !== undefined) config.maxOutputTokens = params.maxTokens;
  if (params.seed !== undefined) config.seed = params.seed;
  if (params.stop !== undefined) config.stopSequences = params.stop;
  if (request.tools?.length) {
    const functionDeclarations = request.tools.map(
      (t): FunctionDeclaration => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters }),
    );
    config.tools = [{ functionDeclarations }];
  }
  if (request.signal) config.abortSignal = request.signal;
  return config;
}

function parseResponse(raw: unknown): {
  text: string;
  toolCalls?: ToolCall[];
  finish?: string;
  usage: Usage;
  modelRevision?: string;
} {
  const r = raw as GenerateContentResponse;
  if (typeof r !== "object" || r === null) throw new MalformedResponseError("google: response is not an object");
  const blocked = r.promptFeedback?.blockReason;
  if (blocked) throw contentFilterError(NAME, `prompt blocked: ${blocked}`);
  const candidate = Array.isArray(r.candidates) ? r.candidates[0] : undefined;
  if (!candidate) throw new MalformedResponseError("google: response without candidates");
  const reason = candidate.finishReason as string | undefined;
  if (reason && BLOCKING_FINISH.has(reason)) throw contentFilterError(NAME, `finishReason ${reason}`);
  // Thought summaries are not the answer.
  const parts = (candidate.content?.parts ?? []).filter((p) => !p.thought);
  const text = parts.flatMap((p) => (typeof p.text === "string" ? [p.text] : [])).join("");
  const toolCalls = parts.flatMap((p, i) =>
    p.functionCall
      ? [
          {
            id: p.functionCall.id ?? `call_${i}`,
            name: p.functionCall.name ?? "",
            arguments: JSON.stringify(p.functionCall.args ?? {}),
          },
        ]
      : [],
  );
  let finish = reason ? (FINISH_REASONS[reason] ?? reason.toLowerCase()) : undefined;
  if (toolCalls.length && finish === "stop") finish = "tool_calls";
  const u = r.usageMetadata;
  return {
    text,
    toolCalls: toolCalls.length ? toolCalls : undefined,
    finish,
    // Thinking tokens are billed as output.
    usage: {
      inputTokens: u?.promptTokenCount ?? 0,
      outputTokens: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
      // Tokens served from cached content are part of promptTokenCount.
      ...(typeof u?.cachedContentTokenCount === "number" ? { cacheReadTokens: u.cachedContentTokenCount } : {}),
    },
    // The model version that answered ("gemini-2.5-flash-001"): an alias may move between versions.
    ...(typeof r.modelVersion === "string" && r.modelVersion !== "" ? { modelRevision: r.modelVersion } : {}),
  };
}

interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
}

interface GoogleErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: Array<Record<string, unknown>> };
}

/** The SDK puts the JSON error body into ApiError.message. */
function errorBody(error: ApiError): GoogleErrorBody["error"] {
  try {
    return (JSON.parse(error.message) as GoogleErrorBody).error;
  } catch {
    return undefined;
  }
}

export function classifyGoogleError(error: unknown): unknown {
  if (error instanceof ApiError) {
    const body = errorBody(error);
    const message = body ? `${body.status ?? ""} ${body.message ?? ""}`.trim() : error.message;
    const retryInfo = body?.details?.find((d) => String(d["@type"]).endsWith("google.rpc.RetryInfo"));
    const base = {
      provider: NAME,
      status: error.status,
      message,
      retryAfterMs: parseDurationSeconds(retryInfo?.retryDelay),
    };
    if (error.status === 400 && CONTEXT_TOO_LONG_PATTERN.test(body?.message ?? "")) {
      return httpError({ ...base, bucket: "context_too_long", retryable: false });
    }
    return httpError(base);
  }
  if (error instanceof SyntaxError)
    return new MalformedResponseError(`google: response body is not JSON (${error.message})`);
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return connectionError(NAME, cause ?? error.message);
  }
  return error;
}

function readOptions(spec: ModelSpec): { apiVersion: string; rpmPerKey?: number } {
  const o = spec.options ?? {};
  const version = o.api_version ?? "v1beta";
  if (typeof version !== "string") throw new InputError(`model '${spec.id}': options.api_version must be a string`);
  const rpm = o.rpm_per_key;
  if (rpm !== undefined && (typeof rpm !== "number" || !(rpm > 0))) {
    throw new InputError(`model '${spec.id}': options.rpm_per_key must be a positive number`);
  }
  return { apiVersion: version, rpmPerKey: rpm as number | undefined };
}

export function createGoogleProvider(spec: ModelSpec, env: ProviderEnv, deps: RemoteProviderDeps = {}): Provider {
  const now = deps.now ?? Date.now;
  const options = readOptions(spec);
  const keys = resolveApiKeys({
    provider: NAME,
    modelId: spec.id,
    apiKeyEnv: spec.api_key_env,
    defaultEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    env,
  });
  const clients = keys.map(
    (apiKey) =>
      new GoogleGenAI({
        apiKey,
        vertexai: false,
        httpOptions: { baseUrl: spec.base_url, apiVersion: options.apiVersion },
      }),
  );
  const pool = new KeyPool(clients, { now, perKeyRpm: options.rpmPerKey });
  const extraDrops = fromSpecParamNames(spec.drop_params);

  // Shared by the synchronous call and the batch API, so a batched call is stored as a synchronous one.
  const prepare = (request: GenerateRequest) => {
    const { params, dropped } = applyParamPolicy(NAME, request.model, request.params, { extraDrops });
    const { system, contents } = toGeminiContents(request.messages);
    return { contents, config: generationConfig(request, params, system), params, dropped };
  };
  const toResult = (raw: unknown, prepared: ReturnType<typeof prepare>, slot?: number): GenerateResult => {
    const parsed = parseResponse(raw);
    return {
      text: parsed.text,
      toolCalls: parsed.toolCalls,
      usage: parsed.usage,
      finishReason: parsed.finish,
      paramsUsed: prepared.params,
      droppedParams: prepared.dropped,
      keySlot: slot,
      ...(parsed.modelRevision ? { modelRevision: parsed.modelRevision } : {}),
    };
  };

  const generate = async (request: GenerateRequest): Promise<GenerateResult> => {
    const prepared = prepare(request);
    const { result, slot } = await callWithKey(
      pool,
      request.signal,
      (client) =>
        client.models.generateContent({ model: request.model, contents: prepared.contents, config: prepared.config }),
      classifyGoogleError,
    );
    return toResult(result, prepared, slot);
  };

  const caps: ReadonlySet<Capability> = new Set<Capability>([
    "generate",
    "system_prompt",
    "tools",
    "seed",
    "temperature",
  ]);
  // Batches go through the first key: a batch is polled and read with the key that created it.
  const batch = googleBatchApi({ client: clients[0], prepare, toResult, classify: classifyGoogleError });
  return { name: NAME, simulated: false, capabilities: () => caps, generate, batch };
}

export const googleProvider: ProviderFactory = (spec, env) => createGoogleProvider(spec, env);
