/**
 * The `llama` provider: local GGUF models through node-llama-cpp (llama.cpp), CPU only.
 *
 * Spec: `model` is the GGUF path, resolved against `options.baseDir` (or `base_dir`), else the
 * spec file's folder (the create context's specDir), else process.cwd(). Options (all optional):
 *   context_size   tokens per context (default: the model's training size, at most 4096)
 *   batch_size     tokens per decode batch (default: node-llama-cpp's, 512 or context_size)
 *   threads        CPU threads (default 1: on small shared machines more threads crawl)
 *   chat_template  "plain" (default) or "model" (the GGUF's own Jinja chat template)
 *
 * Loading: node-llama-cpp is imported lazily on the first call, so the CLI never pays for it
 * when no llama model is used. One Llama backend and one loaded model per GGUF path are
 * shared by all providers in the process (reference-counted); each provider owns one context
 * (one sequence) per path and serialises its calls on it. close() disposes the contexts and
 * releases the models; the last release disposes the model and then the backend.
 *
 * Chat rendering ("plain"): llama-family base models (and the test model) have no chat
 * template, so messages are rendered as
 *     System: <system>\n\nUser: <user>\n\nAssistant: <assistant>\n\n...User: <user>\n\nAssistant:
 * ("Tool: <content>" for tool results). A final assistant message is a prefill: it is
 * rendered without the trailing separator and the model continues it. The single space the
 * model emits after "Assistant:" is part of the template, so one leading space is removed
 * from the generated text (not in the prefill case). The BOS token is prepended when the
 * model asks for it. With chat_template "model" the GGUF's Jinja template is rendered by
 * node-llama-cpp's JinjaTemplateChatWrapper; a model without one is an error.
 *
 * Decoding (generate): temperature 0 or absent = greedy (deterministic). temperature > 0
 * samples with llama.cpp's sampler chain top-k -> top-p -> temperature -> seeded draw; an
 * absent topK/topP disables that filter (node-llama-cpp's own defaults of 40/0.95 are not
 * applied, so the provider-neutral meaning "no filter" holds). A given seed makes sampling
 * reproducible; without one the draw is time-seeded. Stop strings are matched on the decoded
 * text, which is cut before the earliest match (finishReason "stop"); an end-of-generation
 * token also ends with "stop"; hitting maxTokens, or the end of the context, ends with
 * "length" (no context shifting). Each call starts from an empty sequence, so results do not
 * depend on the order of calls. Tools are rejected: the provider declares no "tools"
 * capability. spec.drop_params removes parameters before the call (recorded as dropped).
 *
 * Continuation log-probabilities: each token's log-probability is read from the full
 * next-token distribution over the whole vocabulary (llama.cpp's softmax of the raw logits,
 * with no sampler filters), renormalised in float64: logprob = log p_t - log(sum_v p_v).
 * A distribution that is not the full vocabulary is an error, never a silent top-k.
 *
 * Tokenization at the boundary: P = tokens(prompt), F = tokens(prompt + continuation); the
 * scored tokens are F after the longest common prefix of P and F, conditioned on that
 * prefix. When P is a prefix of F (the usual case) these are exactly the continuation's
 * tokens in context. When the tokenizer merges across the boundary (e.g. a prompt ending in
 * a space, which SentencePiece joins to the next word), the first scored token also carries
 * the prompt's last characters (its text shows them) and is conditioned on the shorter
 * common prefix, rather than on a prompt tokenization that never occurs in F.
 *
 * Prefix reuse: the common prefix of all continuations (K tokens) is evaluated once; each
 * continuation's remaining tokens are evaluated on top of it and then erased from the
 * sequence, rewinding it to the prefix. llama.cpp's CPU kernels are not shape invariant: a
 * one-token decode, or a decode that reads a single output row, takes matrix-vector kernels
 * whose rounding differs from the matrix-matrix ones (measured on stories260K: 1e-8 to 5e-3
 * nats), while decodes of two or more tokens with two or more output rows agree exactly
 * whatever their sizes. So the provider evaluates each continuation including its last
 * token, never leaves a one-token chunk, reads at least two output rows per decode (adding a
 * neighbour when it needs one), and does not share a one-token prefix (an empty prompt after
 * BOS). Shared-prefix scores therefore equal scoring prompt + continuation from scratch in
 * one pass, to rounding (the tests check 1e-9).
 * Limitation: probabilities are float32 from llama.cpp, so a token more than ~87 nats below
 * the top token underflows to p = 0 and gets logprob -Infinity.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { llamaBaseDir, llamaModelPath } from "./llama-path.js";
import type {
  ChatHistoryItem,
  ControlledEvaluateInputItem,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
  Token,
} from "node-llama-cpp";
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
  TokenLogprob,
} from "../contracts/provider.js";
import type { ModelSpec } from "../contracts/spec.js";
import { InputError, ProviderError } from "../core/errors.js";
import { abortReason } from "./errors.js";
import { type LlamaOptions, LlamaOptionsSchema } from "./options.js";
import { applyParamPolicy, fromSpecParamNames } from "./policy.js";
import type { ProviderFactory } from "./types.js";

export type { LlamaOptions } from "./options.js";

type LlamaLib = typeof import("node-llama-cpp");

const CAPABILITIES: ReadonlySet<Capability> = new Set([
  "generate",
  "system_prompt",
  "seed",
  "temperature",
  "continuation_logprobs",
]);

const WANT_PROBABILITIES = { generateNext: { probabilities: true } } as const;

/** Default context ceiling: a large model's training context would allocate gigabytes. */
const DEFAULT_MAX_CONTEXT = 4096;

/** The full next-token distribution after a prompt, indexed by token id. */
export interface NextTokenDistribution {
  /** The evaluated context (BOS included when the model uses one). */
  contextTokens: number[];
  /** Probabilities exactly as llama.cpp computed them (float32 softmax of the raw logits). */
  probabilities: Float64Array;
  /** The same distribution as float64 log-softmax (sums to 1 after exp up to rounding). */
  logprobs: Float64Array;
}

export interface NextTokenDistributionRequest {
  model: string;
  /** Plain text (no chat template); BOS is prepended as for continuation scoring. */
  prompt: string;
  signal?: AbortSignal;
}

/** The llama provider: the Provider contract plus the full next-token distribution. */
export interface LlamaProvider extends Provider {
  continuationLogprobs(request: ContinuationLogprobRequest): Promise<ContinuationLogprobResult>;
  nextTokenDistribution(request: NextTokenDistributionRequest): Promise<NextTokenDistribution>;
  /** Tokens the provider feeds the model for plain text (BOS included when the model uses one). */
  tokenize(model: string, text: string): Promise<number[]>;
  /** Absolute path a model id resolves to (no existence check). */
  resolveModelPath(model: string): string;
  close(): Promise<void>;
}

export const llamaProvider: ProviderFactory = (spec, _env, context) => {
  const parsed = LlamaOptionsSchema.safeParse(spec.options ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
    throw new InputError(`model '${spec.id}' (llama): invalid options: ${detail}`);
  }
  return new LlamaCppProvider(spec, parsed.data, context?.specDir);
};

// ---------------------------------------------------------------------------------------
// Process-wide backend and model cache (reference-counted).

let libPromise: Promise<LlamaLib> | undefined;
const backends = new Map<number, { llama: Promise<Llama>; refs: number }>();
const models = new Map<string, { model: Promise<LlamaModel>; refs: number; threads: number }>();

function loadLib(): Promise<LlamaLib> {
  libPromise ??= import("node-llama-cpp").catch((error: unknown) => {
    libPromise = undefined;
    throw new ProviderError(`llama: cannot load node-llama-cpp: ${message(error)}`, "provider_error", {
      retryable: false,
      cause: error,
    });
  });
  return libPromise;
}

async function acquireBackend(threads: number): Promise<Llama> {
  let entry = backends.get(threads);
  if (!entry) {
    const llama = loadLib().then((lib) =>
      lib.getLlama({
        gpu: false,
        build: "never",
        skipDownload: true,
        maxThreads: threads,
        progressLogs: false,
        logLevel: lib.LlamaLogLevel.error,
      }),
    );
    entry = { llama, refs: 0 };
    backends.set(threads, entry);
    llama.catch(() => backends.delete(threads));
  }
  entry.refs++;
  return entry.llama;
}

async function releaseBackend(threads: number): Promise<void> {
  const entry = backends.get(threads);
  if (!entry || --entry.refs > 0) return;
  backends.delete(threads);
  const llama = await entry.llama.catch(() => undefined);
  await llama?.dispose();
}

async function acquireModel(path: string, threads: number): Promise<LlamaModel> {
  let entry = models.get(path);
  if (!entry) {
    const model = (async () => {
      const llama = await acquireBackend(threads);
      try {
        return await llama.loadModel({ modelPath: path, gpuLayers: 0 });
      } catch (error) {
        await releaseBackend(threads);
        throw new ProviderError(`llama: cannot load model ${path}: ${message(error)}`, "provider_error", {
          retryable: false,
          cause: error,
        });
      }
    })();
    entry = { model, refs: 0, threads };
    models.set(path, entry);
    model.catch(() => models.delete(path));
  }
  entry.refs++;
  try {
    return await entry.model;
  } catch (error) {
    entry.refs--;
    throw error;
  }
}

async function releaseModel(path: string): Promise<void> {
  const entry = models.get(path);
  if (!entry || --entry.refs > 0) return;
  models.delete(path);
  const model = await entry.model.catch(() => undefined);
  if (!model) return;
  await model.dispose();
  await releaseBackend(entry.threads);
}

// ---------------------------------------------------------------------------------------

/** One provider's working state for one GGUF path: a context with one sequence. */
interface Session {
  path: string;
  lib: LlamaLib;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  contextSize: number;
  batchSize: number;
  vocabSize: number;
  /** Calls on the sequence run one at a time, in arrival order. */
  tail: Promise<void>;
}

class LlamaCppProvider implements LlamaProvider {
  readonly name = "llama";
  readonly simulated = false;
  private readonly sessions = new Map<string, Promise<Session>>();
  private closed = false;

  constructor(
    private readonly spec: ModelSpec,
    private readonly options: LlamaOptions,
    private readonly specDir?: string,
  ) {}

  capabilities(): ReadonlySet<Capability> {
    return CAPABILITIES;
  }

  resolveModelPath(model: string): string {
    return llamaModelPath(model, this.options, this.specDir);
  }

  /** "sha256:<hex>" of the GGUF file `model` resolves to (hashed once per file per process). */
  modelRevision(model: string): Promise<string> {
    return fileRevision(this.resolveModelPath(model));
  }

  private baseDir(): string {
    return llamaBaseDir(this.options, this.specDir);
  }

  async tokenize(model: string, text: string): Promise<number[]> {
    const session = await this.session(model);
    return plainTokens(session.model, text);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    if (request.tools && request.tools.length > 0) {
      throw new ProviderError(
        "llama: tool calling is not supported (the provider has no 'tools' capability); run tool scaffolds on a provider that has it",
        "provider_error",
        { retryable: false },
      );
    }
    throwIfAborted(request.signal);
    const { params, dropped } = applyParamPolicy(
      "llama",
      request.model,
      request.params,
      fromSpecParamNames(this.spec.drop_params),
    );
    const session = await this.session(request.model);
    return this.serialise(session, async () => {
      const { tokens, plain, prefill } = this.render(session, request.messages);
      if (tokens.length >= session.contextSize) {
        throw contextTooLong(tokens.length, session.contextSize, "the prompt leaves no room for output");
      }
      const temperature = params.temperature ?? 0;
      const budget = Math.min(params.maxTokens ?? Number.POSITIVE_INFINITY, session.contextSize - tokens.length);
      const stops = (params.stop ?? []).filter((s) => s.length > 0);
      const longestStop = stops.reduce((n, s) => Math.max(n, s.length), 0);
      const lastPromptTokens = tokens.slice(-16);

      await session.sequence.clearHistory();
      const generated: Token[] = [];
      let text = "";
      let finishReason = "stop";
      let cut: number | undefined;
      // Greedy unless temperature > 0; absent topK/topP mean "no filter" (0 = whole vocabulary).
      const sampling =
        temperature > 0
          ? { temperature, topK: params.topK ?? 0, topP: params.topP ?? 1, seed: params.seed }
          : { temperature: 0 };
      if (budget > 0) {
        for await (const token of session.sequence.evaluate(tokens, sampling)) {
          generated.push(token);
          const previousLength = text.length;
          text = session.model.detokenize(generated, false, lastPromptTokens);
          if (stops.length > 0) {
            // Re-decoding can change the tail (partial UTF-8), so look back a little further.
            cut = firstStop(text, stops, Math.max(0, previousLength - longestStop - 8));
            if (cut !== undefined) break;
          }
          if (generated.length >= budget) {
            finishReason = "length";
            break;
          }
          throwIfAborted(request.signal);
        }
      } else {
        finishReason = "length";
      }
      if (cut !== undefined) {
        text = text.slice(0, cut);
        finishReason = "stop";
      }
      if (plain && !prefill && text.startsWith(" ")) text = text.slice(1);
      const paramsUsed: GenerationParams = { ...params, temperature };
      return {
        text,
        usage: { inputTokens: tokens.length, outputTokens: generated.length },
        finishReason,
        paramsUsed,
        droppedParams: dropped,
      };
    });
  }

  async continuationLogprobs(request: ContinuationLogprobRequest): Promise<ContinuationLogprobResult> {
    throwIfAborted(request.signal);
    const session = await this.session(request.model);
    return this.serialise(session, async () => {
      const { model, sequence, contextSize } = session;
      const promptTokens = plainTokens(model, request.prompt);
      const items = request.continuations.map((continuation) => {
        const full = plainTokens(model, request.prompt + continuation);
        if (full.length > contextSize) {
          throw contextTooLong(full.length, contextSize, "prompt + continuation do not fit");
        }
        return { continuation, full, common: commonPrefixLength(promptTokens, full) };
      });
      if (items.length === 0) return { continuations: [], usage: { inputTokens: 0, outputTokens: 0 } };

      // Shared prefix: common to every continuation; a one-token prefix is not shared
      // (its logits would come from a one-token batch, see the header).
      let shared = Math.min(...items.map((i) => i.common));
      if (shared < 2) shared = 0;
      if (items.some((i) => i.common === 0 && i.full.length > 0)) {
        throw new ProviderError(
          "llama: cannot score a continuation with no preceding token (empty prompt and no BOS token)",
          "provider_error",
          { retryable: false },
        );
      }

      let evaluated = 0;
      await sequence.clearHistory();
      let prefixDistribution: Map<Token, number> | undefined;
      if (shared > 0) {
        const out = await this.evaluate(session, items[0].full.slice(0, shared), new Set([shared - 1]), 0);
        prefixDistribution = out.get(shared - 1);
        evaluated += shared;
      }

      const results: ContinuationLogprob[] = [];
      for (const item of items) {
        throwIfAborted(request.signal);
        const { full, common } = item;
        // Position j's token is scored from the distribution after position j - 1.
        const needed = new Set<number>();
        for (let j = common; j < full.length; j++) if (j - 1 >= shared) needed.add(j - 1);
        let distributions = new Map<number, Map<Token, number>>();
        if (needed.size > 0) {
          // Evaluate through the last token so that the batch never has a single token.
          distributions = await this.evaluate(session, full.slice(shared), needed, shared);
          evaluated += full.length - shared;
          await sequence.eraseContextTokenRanges([{ start: shared, end: sequence.nextTokenIndex }]);
        }
        const tokens: TokenLogprob[] = [];
        let total = 0;
        for (let j = common; j < full.length; j++) {
          const distribution = j - 1 < shared ? prefixDistribution : distributions.get(j - 1);
          if (!distribution) throw new Error(`llama: internal: no distribution for position ${j - 1}`);
          const logprob = tokenLogprob(distribution, full[j], session.vocabSize);
          const token = model.detokenize([full[j]], false, full.slice(Math.max(0, j - 16), j));
          tokens.push({ token, logprob });
          total += logprob;
        }
        results.push({ continuation: item.continuation, tokens, total });
      }
      await sequence.clearHistory();
      return { continuations: results, usage: { inputTokens: evaluated, outputTokens: 0 } };
    });
  }

  async nextTokenDistribution(request: NextTokenDistributionRequest): Promise<NextTokenDistribution> {
    throwIfAborted(request.signal);
    const session = await this.session(request.model);
    return this.serialise(session, async () => {
      const tokens = plainTokens(session.model, request.prompt);
      if (tokens.length === 0) throw new ProviderError("llama: empty context (no BOS token)", "provider_error");
      if (tokens.length > session.contextSize) {
        throw contextTooLong(tokens.length, session.contextSize, "the prompt does not fit");
      }
      await session.sequence.clearHistory();
      const out = await this.evaluate(session, tokens, new Set([tokens.length - 1]), 0);
      await session.sequence.clearHistory();
      const distribution = out.get(tokens.length - 1)!;
      const probabilities = fullDistribution(distribution, session.vocabSize);
      const logSum = Math.log(probabilities.reduce((a, b) => a + b, 0));
      const logprobs = probabilities.map((p) => Math.log(p) - logSum);
      return { contextTokens: tokens, probabilities, logprobs };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const sessions = [...this.sessions.entries()];
    this.sessions.clear();
    for (const [path, pending] of sessions) {
      const session = await pending.catch(() => undefined);
      if (!session) continue;
      await session.tail;
      await session.context.dispose();
      await releaseModel(path);
    }
  }

  // -------------------------------------------------------------------------------------

  /**
   * Decodes `tokens` at sequence positions start.. in chunks of at most the batch size,
   * never leaving a one-token chunk, and returns the full next-token distributions at the
   * requested absolute positions.
   */
  private async evaluate(
    session: Session,
    tokens: Token[],
    wanted: ReadonlySet<number>,
    start: number,
  ): Promise<Map<number, Map<Token, number>>> {
    const out = new Map<number, Map<Token, number>>();
    let offset = 0;
    for (const size of chunkSizes(tokens.length, session.batchSize)) {
      const outputs = new Set<number>();
      for (let i = 0; i < size; i++) if (wanted.has(start + offset + i)) outputs.add(i);
      // A single output row takes llama.cpp's matrix-vector path for the output layer, whose
      // rounding differs from the matrix-matrix path; ask for a neighbour too.
      if (outputs.size === 1 && size > 1) outputs.add([...outputs][0] === size - 1 ? size - 2 : size - 1);
      const chunk = tokens
        .slice(offset, offset + size)
        .map((token, i): ControlledEvaluateInputItem => (outputs.has(i) ? [token, WANT_PROBABILITIES] : token));
      const results = await session.sequence.controlledEvaluate(chunk);
      for (let i = 0; i < size; i++) {
        const probabilities = results[i]?.next.probabilities;
        if (probabilities) out.set(start + offset + i, probabilities);
      }
      offset += size;
    }
    for (const position of wanted) {
      if (!out.has(position)) throw new Error(`llama: internal: position ${position} was not evaluated`);
    }
    return out;
  }

  private render(session: Session, messages: ChatMessage[]): { tokens: Token[]; plain: boolean; prefill: boolean } {
    const prefill = messages.length > 0 && messages[messages.length - 1].role === "assistant";
    if (this.options.chat_template === "plain") {
      return { tokens: plainTokens(session.model, renderPlainChat(messages)), plain: true, prefill };
    }
    const template = chatTemplateOf(session.model);
    if (template === undefined) {
      throw new InputError(
        `model '${this.spec.id}' (llama): options.chat_template is 'model' but ${session.path} has no chat template`,
      );
    }
    const wrapper = new session.lib.JinjaTemplateChatWrapper({ template });
    const history: ChatHistoryItem[] = messages.map((m): ChatHistoryItem => {
      if (m.role === "system") return { type: "system", text: m.content };
      if (m.role === "assistant") return { type: "model", response: [m.content] };
      if (m.role === "tool") return { type: "user", text: `Tool result: ${m.content}` };
      return { type: "user", text: m.content };
    });
    // An empty model turn makes the template end with the assistant header.
    if (!prefill) history.push({ type: "model", response: [] });
    const { contextText } = wrapper.generateContextState({ chatHistory: history });
    return { tokens: contextText.tokenize(session.model.tokenizer), plain: false, prefill };
  }

  private serialise<T>(session: Session, fn: () => Promise<T>): Promise<T> {
    const result = session.tail.then(fn).catch((error: unknown) => {
      throw asProviderError(error);
    });
    session.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private session(model: string): Promise<Session> {
    if (this.closed) return Promise.reject(new ProviderError("llama: provider is closed", "provider_error"));
    const path = this.resolveModelPath(model);
    let pending = this.sessions.get(path);
    if (!pending) {
      pending = this.openSession(path, model);
      this.sessions.set(path, pending);
      pending.catch(() => this.sessions.delete(path));
    }
    return pending;
  }

  private async openSession(path: string, model: string): Promise<Session> {
    if (!existsSync(path) || !statSync(path).isFile()) {
      const base = isAbsolute(model) ? "" : ` (model '${model}' resolved against ${this.baseDir()})`;
      throw new ProviderError(`llama: model file not found: ${path}${base}`, "provider_error", { retryable: false });
    }
    const lib = await loadLib();
    const llamaModel = await acquireModel(path, this.options.threads);
    try {
      const contextSize = this.options.context_size ?? Math.min(llamaModel.trainContextSize, DEFAULT_MAX_CONTEXT);
      const context = await llamaModel.createContext({
        contextSize,
        batchSize: this.options.batch_size,
        threads: this.options.threads,
        sequences: 1,
      });
      let vocabSize = 0;
      for (const _ of llamaModel.iterateAllTokens()) vocabSize++;
      return {
        path,
        lib,
        model: llamaModel,
        context,
        sequence: context.getSequence(),
        // llama.cpp may round the context up; the sequence reports the usable size.
        contextSize: context.contextSize,
        batchSize: context.batchSize,
        vocabSize,
        tail: Promise.resolve(),
      };
    } catch (error) {
      await releaseModel(path);
      throw new ProviderError(`llama: cannot create a context for ${path}: ${message(error)}`, "provider_error", {
        retryable: false,
        cause: error,
      });
    }
  }
}

// ---------------------------------------------------------------------------------------

/** The documented plain-text chat template (see the header). */
export function renderPlainChat(messages: readonly ChatMessage[]): string {
  const label: Record<ChatMessage["role"], string> = {
    system: "System",
    user: "User",
    assistant: "Assistant",
    tool: "Tool",
  };
  const parts = messages.map((m) => `${label[m.role]}: ${m.content}`);
  const last = messages[messages.length - 1];
  if (last?.role === "assistant") return parts.join("\n\n");
  return [...parts, "Assistant:"].join("\n\n");
}

/** Plain text to tokens, with BOS when the model wants it; special-token text stays text. */
function plainTokens(model: LlamaModel, text: string): Token[] {
  const bos = model.tokens.bos;
  const body = text.length > 0 ? model.tokenize(text, false) : [];
  return model.tokens.shouldPrependBosToken && bos !== null ? [bos, ...body] : body;
}

function chatTemplateOf(model: LlamaModel): string | undefined {
  const template = model.fileInfo.metadata.tokenizer?.chat_template;
  return typeof template === "string" && template.length > 0 ? template : undefined;
}

function fullDistribution(distribution: Map<Token, number>, vocabSize: number): Float64Array {
  // The engine returns every vocabulary entry when no sampler filter runs; anything else
  // would make the log-softmax wrong, so it is an error rather than a silent top-k.
  if (distribution.size !== vocabSize) {
    throw new Error(`llama: expected a distribution over ${vocabSize} tokens, got ${distribution.size}`);
  }
  const out = new Float64Array(vocabSize);
  for (const [token, p] of distribution) out[token] = p;
  return out;
}

function tokenLogprob(distribution: Map<Token, number>, token: Token, vocabSize: number): number {
  const probabilities = fullDistribution(distribution, vocabSize);
  let sum = 0;
  for (const p of probabilities) sum += p;
  return Math.log(probabilities[token]) - Math.log(sum);
}

function commonPrefixLength(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** Splits n tokens into batches of at most `max` (>= 3), none of size 1 unless n is 1. */
export function chunkSizes(n: number, max: number): number[] {
  const sizes: number[] = [];
  let left = n;
  while (left > 0) {
    let size = Math.min(left, max);
    if (left - size === 1) size -= 1;
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/** Index of the earliest stop string occurring at or after `from`, if any. */
function firstStop(text: string, stops: readonly string[], from: number): number | undefined {
  let best: number | undefined;
  for (const stop of stops) {
    const index = text.indexOf(stop, from);
    if (index >= 0 && (best === undefined || index < best)) best = index;
  }
  return best;
}

function contextTooLong(tokens: number, contextSize: number, what: string): ProviderError {
  return new ProviderError(
    `llama: context too long: ${tokens} tokens for a context of ${contextSize} (${what}); raise options.context_size or shorten the prompt`,
    "context_too_long",
    { retryable: false },
  );
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  const reason = abortReason(signal);
  if (reason !== undefined) throw reason;
}

function asProviderError(error: unknown): unknown {
  if (error instanceof ProviderError || error instanceof InputError) return error;
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return error;
  return new ProviderError(`llama: ${message(error)}`, "provider_error", { retryable: false, cause: error });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const revisions = new Map<string, Promise<string>>();

/** The SHA-256 of a weights file, streamed once and cached by path: which precision answered. */
function fileRevision(path: string): Promise<string> {
  let known = revisions.get(path);
  if (!known) {
    known = new Promise<string>((resolvePromise, reject) => {
      const hash = createHash("sha256");
      createReadStream(path)
        .on("data", (chunk) => hash.update(chunk))
        .on("error", reject)
        .on("end", () => resolvePromise(`sha256:${hash.digest("hex")}`));
    });
    revisions.set(path, known);
  }
  return known;
}
