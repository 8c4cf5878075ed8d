/**
 * The simulated panel: respondents with planted, documented mechanisms, deterministic from a
 * seed. Outputs are synthetic and labelled as such (`simulated: true`). It serves dry runs,
 * power analysis, the quickstart and load benchmarks.
 *
 * A simulated respondent reads the prompt it is actually sent. It finds the item by its
 * question text (the answer key comes from `observeItems`), checks which of the item's
 * options are visible, and answers correctly with probability
 *
 *   p = sigmoid(ability - difficulty + sum of the planted effects that apply)
 *
 * where difficulty is a standard-normal draw derived from the item's content hash. The
 * planted effects (SIM_EFFECTS) act on what reaches the call: an MC item whose options are
 * not all visible is answered in free text (so a letter-scored prompt without its options
 * loses accuracy), open-ended prompts are harder, reasoning prompts and bias-invocation
 * wording shift the logit.
 *
 * Seeds and attempts. Every draw derives from the study's `seed` (the spec's top level, given
 * through the provider create context), the model's options.seed, the model id and the
 * messages, so the same seeds reproduce a run bit for bit and another study seed is another
 * panel. At temperature 0 a respondent is greedy: its answer is fixed per (model, prompt), and
 * repeated attempts repeat it. Above temperature 0 the draw also takes the `seed` parameter
 * and the trial's attempt (GenerateRequest.attempt), so every attempt is an independent draw.
 * Failure injection (options.failure_rate) draws from the same key, the trial's execution
 * (GenerateRequest.execution) and how often this provider has been sent the request, so a
 * retried call, within a run or in a later one, is a fresh draw.
 *
 * The behaviour models live beside this shell, one concept each: the answer key (answer-key.ts),
 * the answer draw (answer.ts), the prompt's form (format-effects.ts), perturbed items
 * (perturbation-effects.ts), scaffold sub-calls as the scaffolds declare them (scaffold-effects.ts),
 * agents with tools (agent.ts) and judges (judge.ts).
 */
import type { Item } from "../../contracts/item.js";
import type {
  Capability,
  ContinuationLogprobRequest,
  ContinuationLogprobResult,
  GenerateRequest,
  GenerateResult,
  Provider,
} from "../../contracts/provider.js";
import type { AgentSubCallKind, SubCall } from "../../contracts/sub-call.js";
import type { ModelSpec } from "../../contracts/spec.js";
import { ProviderError } from "../../core/errors.js";
import { canonicalJson, sha256 } from "../../core/hash.js";
import { estimateTokens } from "../../core/tokens.js";
import { applyParamPolicy, fromSpecParamNames } from "../policy.js";
import type { ProviderFactory } from "../types.js";
import { simAgentReply } from "./agent.js";
import { AnswerKey, answerKeyOf } from "./answer-key.js";
import { type AnswerDraw, type CallContext, plainAnswer } from "./answer.js";
import { uniform } from "./draws.js";
import { askedPart, goldContinuation, pairView, promptEffects } from "./format-effects.js";
import { simJudgeReply } from "./judge.js";
import { readSimOptions, type SimOptions } from "./options.js";
import { correctDraw } from "./perturbation-effects.js";
import { GENERIC_PLAN, scaffoldReply } from "./scaffold-effects.js";
import { sameText } from "./text.js";

const CAPABILITIES: ReadonlySet<Capability> = new Set(["generate", "system_prompt", "seed", "temperature", "tools"]);
/** With options.logprobs: the log-prob scoring path too (continuationLogprobs). */
const LOGPROB_CAPABILITIES: ReadonlySet<Capability> = new Set([...CAPABILITIES, "continuation_logprobs"]);

const AGENT_KINDS: ReadonlySet<string> = new Set<AgentSubCallKind>(["agent", "planner", "actor", "rater", "executor"]);

function isAgentCall(call: SubCall | undefined): call is Extract<SubCall, { kind: AgentSubCallKind }> {
  return call !== undefined && AGENT_KINDS.has(call.kind);
}

export class SimProvider implements Provider {
  readonly name = "sim";
  readonly simulated = true;
  /** Shared with the study's other simulated models that observed the same items (answerKeyOf); never changed in place. */
  private key = new AnswerKey();
  /** How often each draw key has been sent (failure injection: a retry is a fresh draw). */
  private readonly sent = new Map<string, number>();
  /** modelRevision's result per provider model id (the hash is computed once). */
  private readonly revisions = new Map<string, string>();

  constructor(
    private readonly modelId: string,
    private readonly options: SimOptions,
    private readonly extraDrops: ModelSpec["drop_params"] = [],
  ) {}

  /** Only its simulated latency waits on the signal. */
  get readsSignal(): boolean {
    return this.options.latencyMs > 0;
  }

  capabilities(): ReadonlySet<Capability> {
    return this.options.logprobs ? LOGPROB_CAPABILITIES : CAPABILITIES;
  }

  observeItems(items: readonly Item[]): void {
    this.key = answerKeyOf([...this.key.items(), ...items]);
  }

  /**
   * Log-likelihoods of continuations (the log-prob scoring path): the item is found by the prompt,
   * or by the continuations themselves (a sentence pair scored after an empty prompt); the gold
   * continuation gets the highest likelihood with the same probability a generated answer would be
   * right. Deterministic per (model, prompt, continuations): identical requests score identically.
   */
  async continuationLogprobs(request: ContinuationLogprobRequest): Promise<ContinuationLogprobResult> {
    const stream = canonicalJson([this.options.studySeed, this.options.seed, this.modelId, "greedy"]);
    const drawKey = canonicalJson([stream, request.prompt, request.continuations]);
    this.maybeFail(drawKey, 1);
    const { continuations } = request;
    const entry = this.key.find(request.prompt) ?? this.key.findByOptions(continuations);
    const gold = entry ? goldContinuation(entry.item, continuations) : -1;
    let chosen: number;
    if (!entry || gold < 0) chosen = Math.floor(uniform(`${drawKey}|any`) * continuations.length);
    else {
      const shown = request.prompt.trim() !== "" ? request.prompt : pairView(entry.item, continuations);
      const logit =
        this.options.ability -
        entry.difficulty +
        promptEffects(shown) +
        this.planted(shown, 0) +
        this.modelShift(request.model) +
        this.options.logprobShift;
      const correct = correctDraw(this.options.perturbation, entry, { prompt: shown, stream, drawKey, logit });
      const wrong = continuations.map((_, i) => i).filter((i) => !sameText(continuations[i], continuations[gold]));
      chosen = correct || wrong.length === 0 ? gold : wrong[Math.floor(uniform(`${drawKey}|wrong`) * wrong.length)];
    }
    return {
      continuations: continuations.map((continuation, i) => {
        // Word pieces as tokens: first-token scorers tell continuations apart by their first piece.
        const pieces = continuation.match(/\s*\S+\s*/g) ?? [continuation];
        const total = sameText(continuation, continuations[chosen]) ? -1 : -3 - i / 10;
        return {
          continuation,
          total,
          tokens: pieces.map((token) => ({ token, logprob: total / pieces.length })),
        };
      }),
      usage: { inputTokens: estimateTokens(request.prompt), outputTokens: 0 },
    };
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { params, dropped } = applyParamPolicy("sim", request.model, request.params, {
      extraDrops: fromSpecParamNames(this.extraDrops),
    });
    if (this.options.latencyMs > 0) await sleep(this.options.latencyMs, request.signal);
    const prompt = request.messages.map((m) => m.content).join("\n\n");
    // The respondent's stream: greedy at temperature 0 (attempts repeat the answer); above it,
    // each (seed parameter, attempt) is a draw of its own.
    const stochastic = (params.temperature ?? 0) > 0;
    const stream = canonicalJson([
      this.options.studySeed,
      this.options.seed,
      this.modelId,
      stochastic ? { seed: params.seed ?? null, attempt: request.attempt ?? 1 } : "greedy",
    ]);
    const drawKey = canonicalJson([stream, request.messages]);
    this.maybeFail(drawKey, request.execution ?? 1);
    if (isAgentCall(request.subCall)) {
      return this.agentResult(request.subCall, request, { prompt, stream }, { params, dropped });
    }
    const planted = this.planted(prompt, params.temperature ?? 0) + this.modelShift(request.model);
    const text = this.reply(request, { prompt, drawKey, stream, planted });
    const outputTokens = estimateTokens(text);
    const truncated = params.maxTokens !== undefined && outputTokens > params.maxTokens;
    return {
      text: truncated ? text.slice(0, params.maxTokens! * 4) : text,
      usage: { inputTokens: estimateTokens(prompt), outputTokens: truncated ? params.maxTokens! : outputTokens },
      finishReason: truncated ? "length" : "stop",
      paramsUsed: params,
      droppedParams: dropped,
    };
  }

  /** A sub-call of an agent scaffold (agent.ts); the conversation prefix counts as a cache read. */
  private agentResult(
    call: Extract<SubCall, { kind: AgentSubCallKind }>,
    request: GenerateRequest,
    draw: { prompt: string; stream: string },
    applied: { params: GenerateRequest["params"]; dropped: GenerateResult["droppedParams"] },
  ): GenerateResult {
    const { prompt, stream } = draw;
    const { params, dropped } = applied;
    const reply = simAgentReply(call.kind, {
      options: this.options.agent,
      ability: this.options.ability,
      stream,
      execution: request.execution ?? 1,
      messages: request.messages,
      tools: request.tools ?? [],
      item: this.key.find(prompt),
      lastToolFailed: call.lastToolFailed === true,
    });
    const previous = request.messages
      .slice(0, -1)
      .map((m) => m.content)
      .join("\n\n");
    const inputTokens = estimateTokens(prompt);
    const cacheRead = Math.min(inputTokens, estimateTokens(previous));
    return {
      text: reply.text,
      ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
      usage: {
        inputTokens,
        outputTokens: estimateTokens(reply.text + JSON.stringify(reply.toolCalls ?? [])),
        cacheReadTokens: cacheRead,
        cacheWriteTokens: inputTokens - cacheRead,
      },
      finishReason: reply.toolCalls ? "tool_calls" : "stop",
      paramsUsed: params,
      droppedParams: dropped,
    };
  }

  private maybeFail(drawKey: string, execution: number): void {
    if (this.options.failureRate <= 0) return;
    const sent = this.sent.get(drawKey) ?? 0;
    this.sent.set(drawKey, sent + 1);
    const u = uniform(`${drawKey}|fail|${execution}|${sent}`);
    if (u < this.options.failureRate) {
      const retryable = this.options.failureBucket === "rate_limit" || this.options.failureBucket === "timeout";
      throw new ProviderError(`simulated ${this.options.failureBucket}`, this.options.failureBucket, { retryable });
    }
  }

  /** The planted logit shift of the model variant a request names (options.model_shifts; 0 for others). */
  private modelShift(model: string): number {
    return this.options.modelShifts[model] ?? 0;
  }

  /**
   * The simulated weights' revision: "sim:<model>@<hash>", the hash over every planted parameter
   * that shapes answers (the variant's shift included, latency not), so a changed panel or another
   * quantization variant records another revision, as a GGUF's SHA-256 does.
   */
  async modelRevision(model: string): Promise<string> {
    const known = this.revisions.get(model);
    if (known) return known;
    const { latencyMs: _latency, modelShifts: _shifts, ...planted } = this.options;
    const hash = sha256(canonicalJson({ model: this.modelId, planted, shift: this.modelShift(model) })).slice(0, 12);
    const revision = `sim:${model}@${hash}`;
    this.revisions.set(model, revision);
    return revision;
  }

  /**
   * The spec's planted grid effects on this call (options prompt_effects, temperature_effect):
   * read from what the call carries, the prompt's wording and the temperature it is sent with.
   */
  private planted(prompt: string, temperature: number): number {
    const wording = this.options.promptEffects
      .filter((effect) => prompt.includes(effect.contains))
      .reduce((sum, effect) => sum + effect.shift, 0);
    return wording + this.options.temperatureEffect * temperature;
  }

  /** A judge's verdict, a declared scaffold sub-call's reply, or a plain answer. */
  private reply(request: GenerateRequest, draw: AnswerDraw): string {
    const { prompt, stream, drawKey, planted } = draw;
    // A judge or blinding-check prompt gets the simulated judge (judge.ts).
    const judged = simJudgeReply(prompt, {
      modelId: this.modelId,
      studySeed: this.options.studySeed,
      seed: this.options.seed,
      ability: this.options.ability,
      traceRecognition: this.options.traceRecognition,
      findItem: (text) => this.key.find(text)?.item,
    });
    if (judged !== undefined) return judged;
    const call = request.subCall;
    const entry = this.key.find(prompt);
    if (entry === undefined) {
      return call?.kind === "decompose" ? GENERIC_PLAN : plainAnswer(this.options, entry, draw);
    }
    if (call !== undefined) {
      const ctx: CallContext = {
        entry,
        prompt,
        asked: askedPart(prompt, entry.item),
        stream,
        drawKey,
        planted,
        ability: this.options.ability,
      };
      const reply = scaffoldReply(call, ctx, request.messages);
      if (reply !== undefined) return reply;
    }
    return plainAnswer(this.options, entry, draw);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ProviderError("aborted", "other"));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new ProviderError("aborted", "other"));
      },
      { once: true },
    );
  });
}

export const simProvider: ProviderFactory = (spec, _env, context) => {
  const options = readSimOptions(spec, context?.studySeed ?? 0);
  return new SimProvider(spec.id, options, spec.drop_params);
};
