/**
 * The `llama` provider: local GGUF models through node-llama-cpp (llama.cpp), CPU only.
 *
 * Spec: `model` is the GGUF path, resolved against `options.baseDir` (or `base_dir`), else the
 * spec file's folder (the create context's specDir), else process.cwd(). Options (all optional):
 *   context_size   tokens per context (default: the model's training size, at most 4096)
 *   batch_size     tokens per decode batch (default: node-llama-cpp's, 512 or context_size)
 *   threads        CPU threads (default 1: on small shared machines more threads crawl)
 *   chat_template  "plain" (default) or "model" (the GGUF's own Jinja chat template)
 *   tool_choice    "auto" (default) or "required": with tools offered, every reply is a call
 *
 *
 * The provider is a shell over one module per concept: engine.ts (loading node-llama-cpp, the
 * shared backend and model cache, sessions), generation.ts (chat rendering and decoding),
 * tools.ts (tool calling through node-llama-cpp's function calling), scoring.ts (tokenisation,
 * continuation log-probabilities, the next-token distribution) and path.ts (where the GGUF is).
 */
import type {
  Capability,
  ContinuationLogprobRequest,
  ContinuationLogprobResult,
  GenerateRequest,
  GenerateResult,
  Provider,
} from "../../contracts/provider.js";
import type { ModelSpec } from "../../contracts/spec.js";
import { InputError, ProviderError } from "../../core/errors.js";
import { type LlamaOptions, LlamaOptionsSchema } from "../options.js";
import { applyParamPolicy, fromSpecParamNames } from "../policy.js";
import type { ProviderFactory } from "../types.js";
import { closeSession, fileRevision, openSession, type Session, serialise, throwIfAborted } from "./engine.js";
import { type GenerationSetup, generateText, generateWithTools } from "./generation.js";
import { llamaBaseDir, llamaModelPath } from "./path.js";
import {
  type NextTokenDistribution,
  type NextTokenDistributionRequest,
  nextTokens,
  plainTokens,
  scoreContinuations,
} from "./scoring.js";

export type { LlamaOptions } from "../options.js";
export type { NextTokenDistribution, NextTokenDistributionRequest } from "./scoring.js";

const CAPABILITIES: ReadonlySet<Capability> = new Set([
  "generate",
  "system_prompt",
  "seed",
  "temperature",
  "continuation_logprobs",
  "tools",
]);

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

class LlamaCppProvider implements LlamaProvider {
  readonly name = "llama";
  readonly simulated = false;
  private readonly sessions = new Map<string, Promise<Session>>();
  private closed = false;
  private readonly setup: GenerationSetup;

  constructor(
    private readonly spec: ModelSpec,
    private readonly options: LlamaOptions,
    private readonly specDir?: string,
  ) {
    this.setup = { modelId: spec.id, options };
  }

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

  async tokenize(model: string, text: string): Promise<number[]> {
    const session = await this.session(model);
    return plainTokens(session.model, text);
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    throwIfAborted(request.signal);
    const { params, dropped } = applyParamPolicy("llama", request.model, request.params, {
      extraDrops: fromSpecParamNames(this.spec.drop_params),
    });
    const session = await this.session(request.model);
    if (request.tools && request.tools.length > 0) {
      return serialise(session, () => generateWithTools(session, request, { params, dropped }, this.setup));
    }
    return serialise(session, () => generateText(session, request, { params, dropped }, this.setup));
  }

  async continuationLogprobs(request: ContinuationLogprobRequest): Promise<ContinuationLogprobResult> {
    throwIfAborted(request.signal);
    const session = await this.session(request.model);
    return serialise(session, () => scoreContinuations(session, request));
  }

  async nextTokenDistribution(request: NextTokenDistributionRequest): Promise<NextTokenDistribution> {
    throwIfAborted(request.signal);
    const session = await this.session(request.model);
    return serialise(session, () => nextTokens(session, request));
  }

  async close(): Promise<void> {
    this.closed = true;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const pending of sessions) {
      const session = await pending.catch(() => undefined);
      if (session) await closeSession(session);
    }
  }

  private session(model: string): Promise<Session> {
    if (this.closed) return Promise.reject(new ProviderError("llama: provider is closed", "provider_error"));
    const path = this.resolveModelPath(model);
    let pending = this.sessions.get(path);
    if (!pending) {
      pending = openSession(path, model, this.options, () => llamaBaseDir(this.options, this.specDir));
      this.sessions.set(path, pending);
      pending.catch(() => this.sessions.delete(path));
    }
    return pending;
  }
}
