import type { SubCall } from "./sub-call.js";
import type { Item } from "./item.js";

/**
 * The provider contract: what every model backend (sim, llama, openai, anthropic, google)
 * implements, and what scaffolds and the runner call. Types only.
 */

export type MessageRole = "system" | "user" | "assistant" | "tool";

export interface ChatMessage {
  role: MessageRole;
  content: string;
  /** For role "tool": the id of the tool call this message answers. */
  toolCallId?: string;
  /** For role "assistant": tool calls the model asked for. */
  toolCalls?: ToolCall[];
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Arguments as the model produced them (JSON text). */
  arguments: string;
}

/** Decoding parameters, in provider-neutral names. */
export interface GenerationParams {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
}

export type ParamName = keyof GenerationParams;

/** A parameter the provider's policy removed before the call; recorded on the trial. */
export interface DroppedParam {
  name: ParamName;
  value: unknown;
  reason: string;
}

export interface GenerateRequest {
  /** The provider's model identifier (e.g. "gpt-4o", "stories260K.gguf"). */
  model: string;
  messages: ChatMessage[];
  params: GenerationParams;
  tools?: ToolSpec[];
  signal?: AbortSignal;
  /**
   * The attempt (1-based) of the trial this call belongs to. Real providers ignore it (their
   * sampling is its own draw); the simulated panel draws each attempt of a stochastic setting
   * afresh from it, so repeated attempts are independent and still reproducible.
   */
  attempt?: number;
  /**
   * The trial's execution (1 = its first run; a later `run` retries an errored trial as 2, 3,
   * ...). Real providers ignore it; the simulated panel's failure injection draws from it, so a
   * retried trial is a fresh draw and a run with injected failures is still reproducible.
   */
  execution?: number;
  /**
   * A stable name of this call within its run (trial, execution, sub-call number), set by the
   * runner. Batch mode derives the request's custom id from it, so a resumed run finds the
   * request it already submitted.
   */
  callId?: string;
  /**
   * What this sub-call of a scaffold does and what it shows, as the scaffold declares it (absent:
   * a plain question). Real providers ignore it; the simulated panel answers by it.
   */
  subCall?: SubCall;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's prompt cache, where the wire format reports them. */
  cacheReadTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (Anthropic cache_creation_input_tokens). */
  cacheWriteTokens?: number;
}

export interface GenerateResult {
  text: string;
  toolCalls?: ToolCall[];
  usage: TokenUsage;
  /** Provider's stop reason, normalised to lower case ("stop", "length", "tool_calls", ...). */
  finishReason?: string;
  /** The parameters actually sent, after the policy ran. */
  paramsUsed: GenerationParams;
  droppedParams: DroppedParam[];
  /** Which API key slot served the call (index into the rotation; never the key itself). */
  keySlot?: number;
  /** The model id and version the provider reported serving the call (e.g. "gpt-4o-2024-08-06"). */
  modelRevision?: string;
  /** The provider's batch that served the call (batch mode); recorded in the call's note. */
  batchId?: string;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
}

export interface ContinuationLogprobRequest {
  model: string;
  /** The shared prefix (already rendered as plain text; no chat template is applied). */
  prompt: string;
  /** Each continuation is scored as P(continuation | prompt). */
  continuations: string[];
  signal?: AbortSignal;
}

export interface ContinuationLogprob {
  continuation: string;
  tokens: TokenLogprob[];
  /** Sum of the token log-probabilities. */
  total: number;
}

export interface ContinuationLogprobResult {
  continuations: ContinuationLogprob[];
  usage: TokenUsage;
  /** As GenerateResult.modelRevision. */
  modelRevision?: string;
}

export type Capability =
  | "generate"
  | "system_prompt"
  | "tools"
  | "seed"
  | "temperature"
  | "continuation_logprobs"
  | "top_logprobs"
  | "batch";

export interface Provider {
  /** Registered provider name ("sim", "openai", ...). */
  readonly name: string;
  /** Whether model outputs are synthetic (the sim panel); reports label them. */
  readonly simulated: boolean;
  capabilities(model: string): ReadonlySet<Capability>;
  /**
   * False for a provider that never reads a request's signal (the simulated panel without latency
   * answers at once): the resilience wrapper then makes no timeout signal per call. Each signal
   * ends up in V8's old generation (about 0.7 KB), and a paper-scale run makes hundreds of
   * thousands of calls. Absent: the provider reads it.
   */
  readonly readsSignal?: boolean;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  continuationLogprobs?(request: ContinuationLogprobRequest): Promise<ContinuationLogprobResult>;
  /**
   * Gives the provider the study's items. Only the simulated panel uses it (its answer key:
   * a simulated respondent must know the right answer to get it right with its planted
   * probability); real providers do not implement it.
   */
  observeItems?(items: readonly Item[]): void;
  /**
   * Which weights serve `model`, when the provider knows without a call: a local GGUF's
   * "sha256:<hex>" (computed once per file). Providers that learn it from a response report it
   * there instead (GenerateResult.modelRevision).
   */
  modelRevision?(model: string): Promise<string | undefined>;
  /** The provider's batch API (OpenAI Batch, Anthropic Message Batches, Gemini batch mode), when it has one. */
  batch?: ProviderBatchApi;
  close?(): Promise<void>;
}

/** One request of a batch: the custom id that names it in the batch, and the call it stands for. */
export interface BatchEntry {
  customId: string;
  request: GenerateRequest;
}

/** Where a submitted batch stands: still running, or ended (completed, expired, failed, cancelled). */
export interface BatchStatus {
  state: "running" | "ended";
  /** The provider's own status word ("in_progress", "ended", "JOB_STATE_EXPIRED", ...). */
  providerStatus: string;
}

/**
 * One request's outcome as the batch reports it, kept as JSON (the store holds it until the
 * call that asked for it reads it): the response body the synchronous call would have received,
 * the error it would have received (HTTP status and body), or nothing (expired or cancelled
 * before it ran).
 */
export type RawBatchOutcome =
  | { kind: "response"; body: unknown }
  | { kind: "error"; status?: number; body?: unknown; message?: string }
  | { kind: "unfinished"; reason: string };

/** A raw outcome read as the synchronous call reads its answer: a result, or a classified error. */
export type BatchOutcome = { kind: "result"; result: GenerateResult } | { kind: "error"; error: unknown };

/** What a lookup by token knows of the submission: its size, when it was recorded, and the store's own batches. */
export interface BatchLookup {
  model: string;
  requests: number;
  /** When the submission was recorded (ms since the epoch), before the provider was called. */
  since: number;
  /** Which of these batch ids the store already holds (they are not the lost batch). */
  recorded(batchIds: readonly string[]): Promise<Set<string>>;
}

/**
 * A lookup's answer: the batch; no such batch (the submission never reached the provider); or
 * not decidable yet (a batch that may be it cannot be told apart until it ends: ask again later).
 */
export type BatchFound = { state: "found"; batchId: string } | { state: "absent" } | { state: "undecided" };

/** A provider's batch API, through its official SDK. Types only; adapters live in src/models/batch/. */
export interface ProviderBatchApi {
  /** The provider's largest batch, in requests (the spec's max_requests is capped at it). */
  readonly maxRequests?: number;
  /**
   * Submits the entries as one batch (uploading a file first where the API needs one); returns the
   * batch id. `token` (the submission's client token) tags the batch so `find` can look it up.
   */
  submit(model: string, entries: readonly BatchEntry[], signal?: AbortSignal, token?: string): Promise<string>;
  /**
   * Looks up the batch a submission tagged with `token` created, for a run that lost its id (a
   * kill, or a lost reply, between the provider accepting the batch and the store recording it).
   */
  find?(token: string, lookup: BatchLookup, signal?: AbortSignal): Promise<BatchFound>;
  status(batchId: string, signal?: AbortSignal): Promise<BatchStatus>;
  /** Every request outcome an ended batch reports, by custom id. */
  results(batchId: string, signal?: AbortSignal): Promise<Map<string, RawBatchOutcome>>;
  /** Reads a response or error outcome for `request` exactly as the synchronous call would. */
  decode(outcome: RawBatchOutcome & { kind: "response" | "error" }, request: GenerateRequest): BatchOutcome;
  /** Classifies an error of submit/status/results into a ProviderError (the synchronous classification). */
  classify(error: unknown): unknown;
}
