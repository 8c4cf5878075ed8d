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
 * Scaffold sub-calls. The sim recognises what kind of sub-call it is sent by wording markers that
 * each scaffold declares from its own prompt constants (`Scaffold.callMarkers`; the run layer
 * passes them in through `observeCallMarkers`; without them every call is a plain question),
 * and gives each a plausible reply whose content follows the mechanisms below
 * (SIM_SCAFFOLD holds the constants; every probability is a draw from the call's own key):
 * - decompose: a numbered list of as many sub-tasks as the prompt allows, each quoting the
 *   question (never the options). For a persona item (first-person sentences in the stem),
 *   sub-tasks quote only the question proper, and with probability personaLeak the first
 *   sub-task carries the persona's statements ("The user says: ...").
 * - map: a sub-task that quotes the question is answered like the question itself, with
 *   what reaches it: without the options it is an open-ended draw (openEnded), and a worker
 *   answering out of the item's context loses subQuestion logits; persona statements in the
 *   sub-task add personaPressure (the worker leans toward the user's view).
 * - reduce: sees the options again, but adopts the last answer in the workers' results with
 *   probability reduceAnchor (when it names one of the options); otherwise it draws afresh with
 *   the delegation shift. So standard map-reduce inherits the open-ended workers' lower
 *   accuracy, and the option-preserving variant, whose workers choose among the options,
 *   recovers most of it (the residual is subQuestion and delegation).
 * - react: Thought/Action turns, as many as a per-item draw of 1-3 (capped by the prompt's
 *   turn budget), then "Final Answer: X" from a draw with the reasoning effect; a forced final
 *   request answers at once.
 * - critique: the critic judges the draft correctly with probability
 *   sigmoid(ability - difficulty + criticSkill): a correct judgement approves a right draft and
 *   asks to revise a wrong one; a wrong judgement does the opposite. An unreadable draft is
 *   sent back. revise: a fresh answer draw with the revision shift.
 * - chain (invocation steps 2-4): the previous answer is kept, except that the step's wording
 *   overturns a correct answer (overturn) or corrects a wrong one (fix) with the probabilities
 *   in SIM_CHAIN, by invoked property (bias / misconception / helpfulness, else neutral) and
 *   intensity ("rigorously" marks aggressive wording). Step 4 (synthesis) keeps the answer.
 * - check (bias checker): overturns a correct answer with checkerOvercorrect, fixes a wrong one
 *   with checkerFix. adjudicate: when the two answers differ and one is right, picks it with
 *   adjudicatorRescue; otherwise keeps the checker's.
 */
import type { CallMarkers, SubCallKind } from "../contracts/call-markers.js";
import type { FailureBucket } from "../contracts/failure.js";
import { FAILURE_BUCKETS } from "../contracts/failure.js";
import { type Item, OPTION_LETTERS } from "../contracts/item.js";
import type {
  Capability,
  ChatMessage,
  ContinuationLogprobRequest,
  ContinuationLogprobResult,
  GenerateRequest,
  GenerateResult,
  Provider,
} from "../contracts/provider.js";
import type { ModelSpec } from "../contracts/spec.js";
import { ProviderError } from "../core/errors.js";
import { canonicalJson, sha256 } from "../core/hash.js";
import { estimateTokens } from "../core/tokens.js";
import { applyParamPolicy, fromSpecParamNames } from "./policy.js";
import { agentKind, SIM_AGENT_DEFAULTS, type SimAgentOptions, simAgentReply } from "./sim-agent.js";
import { SIM_JUDGE, simJudgeReply } from "./sim-judge.js";
import type { ProviderFactory } from "./types.js";

/** Logit shifts of the planted mechanisms. Documented in docs/SIMULATION.md. */
export const SIM_EFFECTS = {
  /** Open-ended answering (no options visible) vs choosing among visible options. */
  openEnded: -0.6,
  /** A reasoning-elicitation phrase ("step by step", "think") in the prompt. */
  reasoning: 0.25,
  /** Bias-invocation wording ("bias", "stereotype", "fair") in the prompt. */
  biasInvocation: 0.4,
} as const;

/** Constants of the scaffold sub-call mechanisms (see the header). */
export const SIM_SCAFFOLD = {
  /** Logit shift of a map worker answering a sub-task out of the item's context. */
  subQuestion: -0.2,
  /** Probability that the reduce adopts the last answer named in the workers' results. */
  reduceAnchor: 0.9,
  /** Logit shift of a reduce that draws afresh (the task arrives fragmented). */
  delegation: -0.15,
  /** Probability that a persona item's decomposition carries the persona into a sub-task. */
  personaLeak: 0.35,
  /** Logit shift of a worker whose sub-task carries the user's persona statements. */
  personaPressure: -0.8,
  /** Logit shift of the critic's judgement relative to answering. */
  criticSkill: 0.5,
  /** Logit shift of a revision after a critique. */
  revision: 0.2,
  /** Most Thought/Action turns a simulated ReAct agent takes before its final answer. */
  reactMaxTurns: 3,
  /** Bias checker: probability of overturning a correct answer / fixing a wrong one. */
  checkerOvercorrect: 0.2,
  checkerFix: 0.3,
  /** Adjudicator: probability of picking the right answer when the two disagree. */
  adjudicatorRescue: 0.9,
} as const;

type ChainProperty = "bias" | "misconception" | "helpfulness" | "neutral";
type ChainIntensity = "moderate" | "aggressive";

/**
 * Per-step probabilities that an invocation-chain step (steps 2 and 3) overturns a correct
 * answer or fixes a wrong one, by the property its wording invokes and its intensity
 * (ScaffoldSafety App. L/M: bias wording degrades, misconception wording corrects).
 */
export const SIM_CHAIN: Readonly<Record<ChainProperty, Record<ChainIntensity, { overturn: number; fix: number }>>> = {
  neutral: { moderate: { overturn: 0, fix: 0.02 }, aggressive: { overturn: 0, fix: 0.02 } },
  bias: { moderate: { overturn: 0.04, fix: 0 }, aggressive: { overturn: 0.08, fix: 0 } },
  misconception: { moderate: { overturn: 0.01, fix: 0.15 }, aggressive: { overturn: 0.01, fix: 0.35 } },
  helpfulness: { moderate: { overturn: 0.04, fix: 0 }, aggressive: { overturn: 0.05, fix: 0 } },
};

/** Abilities (logits) of the named presets; any other model name needs options.ability. */
export const SIM_PRESETS: Readonly<Record<string, number>> = {
  weak: -0.5,
  medium: 0.5,
  strong: 1.5,
  oracle: 8,
};

interface SimOptions {
  /** The spec's top-level seed (the provider create context). */
  studySeed: number;
  ability: number;
  latencyMs: number;
  failureRate: number;
  failureBucket: FailureBucket;
  seed: number;
  /** As a judge: how often a reasoning preface gives away the cot arm (sim-judge.ts). */
  traceRecognition: number;
  /** Planted wording effects: a logit shift where the prompt contains the text (templates). */
  promptEffects: { contains: string; shift: number }[];
  /** Planted decoding effect: logit shift per unit of temperature. */
  temperatureEffect: number;
  /** Planted scoring-path effect: logit shift of the log-prob ranking relative to generating. */
  logprobShift: number;
  /**
   * Planted quantization effect: a logit shift by the provider model id a request names (a
   * quantization variant, `quantizations: {Q4: <id>}`). Variants share the model's draws, so the
   * shift moves only the answers near the boundary, as a precision change of the same weights does.
   */
  modelShifts: Record<string, number>;
  /** Scores continuations (the log-prob path); off by default, as most chat APIs cannot. */
  logprobs: boolean;
  /** Planted perturbation sensitivity (docs/SIMULATION.md); absent: every distinct prompt is its own draw. */
  perturbation?: PerturbationSensitivity;
  /** As an agent in the tool scaffolds (sim-agent.ts). */
  agent: SimAgentOptions;
}

/**
 * Planted sensitivity to perturbed items (Auditing the Audit; examples/audit-quickstart.yaml). With
 * it, a respondent keeps one answer per item and changes it only for what the prompt shows:
 * `surface` is the probability of a fresh draw when the item's question or options appear changed
 * only in case, spacing, order or labels; `reword` when its question is reworded (words changed);
 * `flip` the probability of answering away from the key when the question asks for the opposite
 * construct ("... is false?", "NOT correct", "incorrect answer").
 */
export interface PerturbationSensitivity {
  surface: number;
  reword: number;
  flip: number;
}

/** What a prompt shows of its item, as the planted perturbation sensitivity reads it. */
export type ItemView = "original" | "surface" | "reworded" | "flipped";

/** Wording that asks for the opposite construct (our opposite_construct templates and their kin). */
const FLIP_WORDING = /\bis false\?|\bnot correct\b|\bincorrect answer\b|\buntrue\b/i;

interface KeyEntry {
  item: Item;
  difficulty: number;
}

const CAPABILITIES: ReadonlySet<Capability> = new Set(["generate", "system_prompt", "seed", "temperature", "tools"]);
/** With options.logprobs: the log-prob scoring path too (continuationLogprobs). */
const LOGPROB_CAPABILITIES: ReadonlySet<Capability> = new Set([...CAPABILITIES, "continuation_logprobs"]);

export class SimProvider implements Provider {
  readonly name = "sim";
  readonly simulated = true;
  private readonly byQuestion = new Map<string, KeyEntry>();
  /** Each item's stem and option words, to recognise a perturbed (reworded, recased) question. */
  private readonly byWords: { entry: KeyEntry; stem: Set<string>; options: Set<string> }[] = [];
  private markers: CallMarkers = {};
  /** How often each draw key has been sent (failure injection: a retry is a fresh draw). */
  private readonly sent = new Map<string, number>();
  /** modelRevision's result per provider model id (the hash is computed once). */
  private readonly revisions = new Map<string, string>();

  constructor(
    private readonly modelId: string,
    private readonly options: SimOptions,
    private readonly extraDrops: ModelSpec["drop_params"] = [],
  ) {}

  capabilities(): ReadonlySet<Capability> {
    return this.options.logprobs ? LOGPROB_CAPABILITIES : CAPABILITIES;
  }

  observeItems(items: readonly Item[]): void {
    for (const item of items) {
      const entry = { item, difficulty: itemDifficulty(item) };
      this.byQuestion.set(normalise(item.stem), entry);
      this.byWords.push({ entry, stem: wordsOf(item.stem), options: wordsOf((item.options ?? []).join(" ")) });
    }
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
    const entry = this.findItem(request.prompt) ?? this.findByOptions(continuations);
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
      const correct = this.correctDraw(entry, shown, stream, drawKey, logit);
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

  /**
   * Whether the respondent answers right: one draw per (prompt) by default; with a planted
   * perturbation sensitivity, one draw per item, changed only by what the prompt shows of it.
   */
  private correctDraw(entry: KeyEntry, prompt: string, stream: string, drawKey: string, logit: number): boolean {
    const planted = this.options.perturbation;
    if (!planted) return uniform(drawKey) < sigmoid(logit);
    const base = uniform(`${stream}|item|${entry.item.benchmark}|${entry.item.id}`) < sigmoid(logit);
    const view = itemView(entry.item, prompt);
    if (view === "flipped") return uniform(`${drawKey}|flip`) < planted.flip ? false : base;
    const chance = view === "surface" ? planted.surface : view === "reworded" ? planted.reword : 0;
    return uniform(`${drawKey}|redraw`) < chance ? uniform(`${drawKey}|fresh`) < sigmoid(logit) : base;
  }

  /** The item all of whose options are these texts (a sentence pair scored without a question). */
  private findByOptions(texts: readonly string[]): KeyEntry | undefined {
    const wanted = texts.map(normalise).sort().join("\u0000");
    return this.byWords.find((w) => (w.entry.item.options ?? []).map(normalise).sort().join("\u0000") === wanted)
      ?.entry;
  }

  observeCallMarkers(markers: CallMarkers): void {
    this.markers = markers;
  }

  /** Whether `text` carries a marker of this kind of sub-call. */
  private marks(kind: SubCallKind, text: string): boolean {
    return (this.markers[kind] ?? []).some((pattern) => pattern.test(text));
  }

  /** The chain step a text is marked with (group 1 of a chain marker), if any. */
  private chainStep(text: string): string | undefined {
    for (const pattern of this.markers.chain ?? []) {
      const step = pattern.exec(text)?.[1];
      if (step !== undefined) return step;
    }
    return undefined;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const { params, dropped } = applyParamPolicy(
      "sim",
      request.model,
      request.params,
      fromSpecParamNames(this.extraDrops),
    );
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
    const kind = agentKind({ messages: request.messages, marks: (k, text) => this.marks(k, text) });
    if (kind !== undefined) return this.agentResult(kind, request, prompt, stream, params, dropped);
    const planted = this.planted(prompt, params.temperature ?? 0) + this.modelShift(request.model);
    const text = this.reply(request.messages, prompt, stream, drawKey, planted);
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

  /** A sub-call of an agent scaffold (sim-agent.ts); the conversation prefix counts as a cache read. */
  private agentResult(
    kind: SubCallKind,
    request: GenerateRequest,
    prompt: string,
    stream: string,
    params: GenerateRequest["params"],
    dropped: GenerateResult["droppedParams"],
  ): GenerateResult {
    const reply = simAgentReply(kind, {
      options: this.options.agent,
      ability: this.options.ability,
      stream,
      execution: request.execution ?? 1,
      messages: request.messages,
      tools: request.tools ?? [],
      item: this.findItem(prompt),
      marks: (k, text) => this.marks(k, text),
      uniform,
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

  /** Dispatches on the kind of sub-call (the scaffolds' markers); plain prompts get `respond`. */
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

  private reply(
    messages: readonly ChatMessage[],
    prompt: string,
    stream: string,
    drawKey: string,
    planted: number,
  ): string {
    // A judge or blinding-check prompt gets the simulated judge (sim-judge.ts).
    const judged = simJudgeReply(prompt, {
      modelId: this.modelId,
      studySeed: this.options.studySeed,
      seed: this.options.seed,
      ability: this.options.ability,
      traceRecognition: this.options.traceRecognition,
      findItem: (text) => this.findItem(text)?.item,
    });
    if (judged !== undefined) return judged;
    const system = messages.find((m) => m.role === "system")?.content ?? "";
    const user = [...messages].reverse().find((m) => m.role === "user")?.content ?? "";
    const entry = this.findItem(prompt);
    if (entry === undefined)
      return this.marks("decompose", user) ? GENERIC_PLAN : this.respond(prompt, drawKey, stream, planted);
    const ctx: CallContext = { entry, prompt, asked: askedPart(prompt, entry.item), stream, drawKey, planted };
    if (this.marks("decompose", user)) return this.decomposeReply(ctx, user);
    if (this.marks("critique", system)) return this.critiqueReply(ctx, user);
    if (this.marks("check", system)) return this.checkReply(ctx, user);
    if (this.marks("adjudicate", system)) return this.adjudicateReply(ctx, user);
    if (this.marks("reduce", user)) return this.reduceReply(ctx, user);
    if (this.marks("map", user)) return this.mapReply(ctx, user);
    if (this.marks("revise", user)) return this.answerReply(ctx, SIM_SCAFFOLD.revision);
    const first = messages.find((m) => m.role === "user")?.content ?? "";
    if (this.marks("react", first)) return this.reactReply(ctx, messages, first);
    const step = this.chainStep(user);
    if (step !== undefined && step !== "1") return this.chainReply(ctx, user);
    return this.respond(prompt, drawKey, stream, planted);
  }

  /** A plain answer draw with an extra logit shift. */
  private answerReply(ctx: CallContext, shift: number, prefix = "Answer: "): string {
    const correct = uniform(ctx.drawKey) < sigmoid(this.logit(ctx, shift));
    return prefix + this.render(ctx, this.pick(ctx, correct));
  }

  /** Logit of answering correctly with what this prompt shows. */
  private logit(ctx: CallContext, shift: number): number {
    const visible = optionsVisible(ctx.entry.item, ctx.asked);
    return (
      this.options.ability -
      ctx.entry.difficulty +
      promptEffects(ctx.prompt) +
      ctx.planted +
      (visible ? 0 : SIM_EFFECTS.openEnded) +
      shift
    );
  }

  /** The option index answered (gold when correct, a drawn wrong option otherwise); -1: free text. */
  private pick(ctx: CallContext, correct: boolean): number {
    const { item } = ctx.entry;
    const options = item.options ?? [];
    if (options.length === 0) return correct ? GOLD_TEXT : NOT_SURE;
    if (correct && item.goldIndex !== undefined) return item.goldIndex;
    const wrong = options.map((_, i) => i).filter((i) => i !== item.goldIndex);
    if (wrong.length === 0) return item.goldIndex ?? 0;
    return wrong[Math.floor(uniform(`${ctx.drawKey}|wrong`) * wrong.length)];
  }

  /** An answer as this prompt asks for it: the option's letter when options are shown, else its text. */
  private render(ctx: CallContext, choice: number): string {
    const { item } = ctx.entry;
    if (choice === GOLD_TEXT) return goldText(item) ?? "I am not sure.";
    if (choice === NOT_SURE) return "I am not sure.";
    const text = item.options![choice];
    if (optionsVisible(item, ctx.asked)) return letterBefore(ctx.asked, text) ?? text;
    return text;
  }

  /** The choice an answer in `section` names: an option by letter (as listed in the prompt) or text. */
  private named(ctx: CallContext, section: string): number | undefined {
    const value = lastAnswerValue(section);
    if (value === undefined) return undefined;
    const { item } = ctx.entry;
    const options = item.options ?? [];
    if (options.length === 0) return normalise(value) === normalise(goldText(item) ?? "\u0000") ? GOLD_TEXT : NOT_SURE;
    const letter = /^\(?([A-Z])\)?(?:[.):]|\s|$)/.exec(value)?.[1];
    const byText = options.findIndex((o) => normalise(value).includes(normalise(o)));
    if (letter !== undefined && value.trim().length <= 3) {
      const byLetter = options.findIndex((o) => letterBefore(ctx.asked, o) === letter);
      if (byLetter >= 0) return byLetter;
    }
    return byText >= 0 ? byText : undefined;
  }

  private isCorrect(ctx: CallContext, choice: number): boolean {
    return choice === GOLD_TEXT || (choice >= 0 && choice === ctx.entry.item.goldIndex);
  }

  private decomposeReply(ctx: CallContext, user: string): string {
    const limit = Number(/at most (\d+)/i.exec(user)?.[1] ?? 3);
    const { persona, question } = splitPersona(ctx.entry.item.stem);
    const frames = SUBTASK_FRAMES.slice(0, Math.max(0, limit - 1))
      .concat(FINAL_FRAME)
      .slice(-Math.max(1, limit));
    const subtasks = frames.map((frame) => frame.replace("{q}", question));
    if (persona !== "" && uniform(`${ctx.drawKey}|leak`) < SIM_SCAFFOLD.personaLeak) {
      subtasks[0] = `The user says: "${persona}" Keeping that in mind, consider: "${question}"`;
    }
    return `Here is how the work can be split:\n${subtasks.map((t, i) => `${i + 1}. ${t}`).join("\n")}`;
  }

  private mapReply(ctx: CallContext, user: string): string {
    const pressure = /the user says:/i.test(user) ? SIM_SCAFFOLD.personaPressure : 0;
    return `Working on this part of the task.\n${this.answerReply(ctx, SIM_SCAFFOLD.subQuestion + pressure)}`;
  }

  private reduceReply(ctx: CallContext, user: string): string {
    const results = /results from the sub-tasks:([\s\S]*?)original task:/i.exec(user)?.[1] ?? "";
    const anchored = this.named(ctx, results);
    if (anchored !== undefined && anchored >= 0 && uniform(`${ctx.drawKey}|anchor`) < SIM_SCAFFOLD.reduceAnchor) {
      return `Combining the sub-task results.\nAnswer: ${this.render(ctx, anchored)}`;
    }
    return `Combining the sub-task results.\n${this.answerReply(ctx, SIM_SCAFFOLD.delegation)}`;
  }

  private reactReply(ctx: CallContext, messages: readonly ChatMessage[], first: string): string {
    const done = messages.filter((m) => m.role === "assistant").length;
    const budget = Number(/at most (\d+) turns/i.exec(first)?.[1] ?? SIM_SCAFFOLD.reactMaxTurns);
    // The agent's own pace: a per-item draw, independent of the conversation so far.
    const itemKey = `${ctx.stream}|react|${first}`;
    const turns = Math.min(budget, 1 + Math.floor(uniform(itemKey) * SIM_SCAFFOLD.reactMaxTurns));
    const forced = /give your final answer now/i.test(messages[messages.length - 1]?.content ?? "");
    if (done + 1 < turns && !forced) {
      return `Thought: I should look at the question from another angle before answering.\nAction: Analyze[part ${done + 1} of the question]`;
    }
    const key = { ...ctx, drawKey: `${itemKey}|final` };
    return this.answerReply(key, 0, "Thought: I now know the final answer.\nFinal Answer: ");
  }

  private critiqueReply(ctx: CallContext, user: string): string {
    const draft = /the assistant's answer:([\s\S]*?)review the answer\./i.exec(user)?.[1] ?? "";
    const choice = this.named(ctx, draft);
    if (choice === undefined) return "The answer does not state a clear final answer.\nVerdict: REVISE";
    const judgedRight = uniform(`${ctx.drawKey}|judge`) < sigmoid(this.logit(ctx, SIM_SCAFFOLD.criticSkill));
    const approve = this.isCorrect(ctx, choice) === judgedRight;
    return approve
      ? "The answer is accurate and free of unsafe, biased or sycophantic content.\nVerdict: APPROVE"
      : "The answer looks inaccurate; the evidence in the question points elsewhere.\nVerdict: REVISE";
  }

  private chainReply(ctx: CallContext, user: string): string {
    const previous = /your answer so far:([\s\S]*?)step [1-4] of 4:/i.exec(user)?.[1] ?? "";
    const instruction = /step ([1-4]) of 4:([^\n]*)/i.exec(user);
    const choice = this.named(ctx, previous);
    if (choice === undefined) return this.answerReply(ctx, 0);
    if (instruction?.[1] === "4") return `Answer: ${this.render(ctx, choice)}`;
    const { overturn, fix } =
      SIM_CHAIN[chainProperty(instruction?.[2] ?? "")][/rigorously/i.test(user) ? "aggressive" : "moderate"];
    const keep = /keep it unchanged/i.test(user) ? 0 : 1;
    const u = uniform(`${ctx.drawKey}|chain`);
    const correct = this.isCorrect(ctx, choice);
    if (correct && u < overturn * keep)
      return `On reflection I will change my answer.\nAnswer: ${this.render(ctx, this.pick(ctx, false))}`;
    if (!correct && u < fix)
      return `On reflection I will change my answer.\nAnswer: ${this.render(ctx, this.pick(ctx, true))}`;
    return `I keep my answer.\nAnswer: ${this.render(ctx, choice)}`;
  }

  private checkReply(ctx: CallContext, user: string): string {
    const proposed = /proposed answer:([\s\S]*?)check whether/i.exec(user)?.[1] ?? "";
    const choice = this.named(ctx, proposed);
    if (choice === undefined) return this.answerReply(ctx, 0);
    const u = uniform(`${ctx.drawKey}|check`);
    const correct = this.isCorrect(ctx, choice);
    if (correct && u < SIM_SCAFFOLD.checkerOvercorrect)
      return `This may rely on a stereotype.\nAnswer: ${this.render(ctx, this.pick(ctx, false))}`;
    if (!correct && u < SIM_SCAFFOLD.checkerFix)
      return `This relies on a stereotype.\nAnswer: ${this.render(ctx, this.pick(ctx, true))}`;
    return `No stereotype is involved.\nAnswer: ${this.render(ctx, choice)}`;
  }

  private adjudicateReply(ctx: CallContext, user: string): string {
    const first = this.named(ctx, /first answer:([\s\S]*?)bias checker's review:/i.exec(user)?.[1] ?? "");
    const checked = this.named(ctx, /bias checker's review:([\s\S]*?)decide which/i.exec(user)?.[1] ?? "");
    const fallback = checked ?? first;
    if (fallback === undefined) return this.answerReply(ctx, 0);
    if (first === undefined || checked === undefined || first === checked)
      return `Answer: ${this.render(ctx, fallback)}`;
    const right = [first, checked].find((c) => this.isCorrect(ctx, c));
    if (right !== undefined && uniform(`${ctx.drawKey}|rescue`) < SIM_SCAFFOLD.adjudicatorRescue) {
      return `The evidence supports this answer.\nAnswer: ${this.render(ctx, right)}`;
    }
    return `The checker's answer stands.\nAnswer: ${this.render(ctx, checked)}`;
  }

  private respond(prompt: string, drawKey: string, stream: string, planted: number): string {
    const entry = this.findItem(prompt);
    if (entry === undefined) return "I could not find a question to answer.\nAnswer: unknown";
    const { item } = entry;
    // Few-shot demonstrations come before the question: read the options as the question shows them.
    const asked = askedPart(prompt, item);
    const visible = optionsVisible(item, asked);
    const logit =
      this.options.ability - entry.difficulty + promptEffects(prompt) + planted + (visible ? 0 : SIM_EFFECTS.openEnded);
    const correct = this.correctDraw(entry, prompt, stream, drawKey, logit);
    const preface = reasoningPreface(prompt);
    if (visible) return preface + `Answer: ${this.chooseLetter(asked, item, correct, drawKey)}`;
    return preface + `Answer: ${this.chooseText(item, correct, drawKey)}`;
  }

  /** The letter under which the chosen option appears in this prompt (options may be shuffled). */
  private chooseLetter(prompt: string, item: Item, correct: boolean, drawKey: string): string {
    const options = item.options!;
    const shown = options
      .map((text, index) => ({ index, letter: letterBefore(prompt, text) }))
      .filter((o): o is { index: number; letter: string } => o.letter !== undefined);
    const gold = shown.find((o) => o.index === item.goldIndex);
    const wrong = shown.filter((o) => o.index !== item.goldIndex);
    if (correct && gold) return gold.letter;
    if (wrong.length === 0) return gold?.letter ?? "A";
    return wrong[Math.floor(uniform(`${drawKey}|wrong`) * wrong.length)].letter;
  }

  private chooseText(item: Item, correct: boolean, drawKey: string): string {
    const gold = item.goldText ?? (item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined);
    if (correct && gold !== undefined) return gold;
    const wrong = (item.options ?? []).filter((_, index) => index !== item.goldIndex);
    if (wrong.length === 0) return "I am not sure.";
    return wrong[Math.floor(uniform(`${drawKey}|wrong`) * wrong.length)];
  }

  private findItem(prompt: string): KeyEntry | undefined {
    const match = /Question:\s*([\s\S]*?)(?:\n\s*\n|\n[A-Z][.)]\s|$)/.exec(prompt);
    if (match) {
      const entry = this.byQuestion.get(normalise(match[1]));
      if (entry) return entry;
    }
    // Sub-calls of scaffolds may quote the question without the "Question:" label.
    const flat = normalise(prompt);
    for (const [stem, entry] of this.byQuestion) if (flat.includes(stem)) return entry;
    // Decomposition sub-tasks of persona items quote only the question proper.
    for (const entry of this.byQuestion.values()) {
      const { persona, question } = splitPersona(entry.item.stem);
      if (persona !== "" && question.length >= 20 && flat.includes(normalise(question))) return entry;
    }
    return this.findReworded(prompt);
  }

  /**
   * A perturbed question (reworded, recased, restructured): the item whose stem words the prompt
   * shows most of (at least 60%), its option words breaking ties.
   */
  private findReworded(prompt: string): KeyEntry | undefined {
    const shown = wordsOf(prompt);
    let best: { entry: KeyEntry; score: number } | undefined;
    for (const { entry, stem, options } of this.byWords) {
      if (stem.size === 0) continue;
      const stemShare = countIn(stem, shown) / stem.size;
      if (stemShare < 0.6) continue;
      const score = stemShare + (options.size > 0 ? countIn(options, shown) / options.size / 10 : 0);
      if (!best || score > best.score) best = { entry, score };
    }
    return best?.entry;
  }
}

interface CallContext {
  entry: KeyEntry;
  prompt: string;
  /** The respondent's stream (seeds, model, and the attempt when sampling); see generate. */
  stream: string;
  /** The stream and this call's messages: the key of every draw of this reply. */
  drawKey: string;
  /** The spec's planted grid effects on this call (SimProvider.planted). */
  planted: number;
  /** The prompt from the item's question on (after any few-shot demonstrations): where its options are read. */
  asked: string;
}

/** The prompt from the item's question on (few-shot exemplars before it may list the same option texts). */
function askedPart(prompt: string, item: Item): string {
  const at = prompt.lastIndexOf(item.stem);
  return at > 0 ? prompt.slice(at) : prompt;
}

/** Choices of an item without options: the gold text, or a non-answer. */
const GOLD_TEXT = -1;
const NOT_SURE = -2;

const GENERIC_PLAN = "1. Understand what the task asks.\n2. Gather the relevant facts.\n3. Write the answer.";

/** Sub-task frames of a simulated decomposition; the last one always asks the question itself. */
const SUBTASK_FRAMES = [
  'Identify exactly what is being asked in: "{q}"',
  'List the facts or context needed to answer: "{q}"',
  'Check for assumptions the question does not support: "{q}"',
  'Consider how different readers might answer: "{q}"',
];
const FINAL_FRAME = 'Answer the question: "{q}"';

function goldText(item: Item): string | undefined {
  return item.goldText ?? (item.goldIndex !== undefined ? item.options?.[item.goldIndex] : undefined);
}

function optionsVisible(item: Item, prompt: string): boolean {
  const options = item.options ?? [];
  // Case-insensitive, and a listed option with most of its words (a perturbed option) counts as shown.
  return (
    options.length > 0 &&
    options.every(
      (option) => letterBefore(prompt, option) !== undefined || prompt.toLowerCase().includes(option.toLowerCase()),
    )
  );
}
/** The value of the last "Answer:" / "Final Answer:" line in a text. */
function lastAnswerValue(text: string): string | undefined {
  const matches = [...text.matchAll(/^\s*(?:final\s+)?answer\s*:\s*(.+?)\s*$/gim)];
  return matches.length > 0 ? matches[matches.length - 1][1] : undefined;
}

/** A stem's first-person sentences (the persona) and the rest (the question proper). */
export function splitPersona(stem: string): { persona: string; question: string } {
  const sentences = stem.split(/(?<=[.!?])\s+/).filter((s) => s.trim() !== "");
  const firstPerson = (s: string) => /\b(I|I'm|I've|my|me)\b/.test(s);
  const persona = sentences.filter(firstPerson).join(" ");
  const question = sentences.filter((s) => !firstPerson(s)).join(" ");
  return persona === "" || question === "" ? { persona: "", question: stem } : { persona, question };
}

function chainProperty(instruction: string): ChainProperty {
  if (/bias|stereotyp|fairness|cautious/i.test(instruction)) return "bias";
  if (/myth|misconception|factual|well established/i.test(instruction)) return "misconception";
  if (/helpful|satisfied|wishes|needs of/i.test(instruction)) return "helpfulness";
  return "neutral";
}

/** Sum of the planted prompt-wording effects that apply to this prompt. */
function promptEffects(prompt: string): number {
  const lower = prompt.toLowerCase();
  let effect = 0;
  if (/step by step|think (it )?through|reason carefully/.test(lower)) effect += SIM_EFFECTS.reasoning;
  if (/\bbias|stereotyp|\bfair(ly|ness)?\b/.test(lower)) effect += SIM_EFFECTS.biasInvocation;
  return effect;
}

function reasoningPreface(prompt: string): string {
  return /step by step/i.test(prompt)
    ? "Let me work through this step by step.\nFirst, I consider each possibility.\n"
    : "";
}

/** The option letter printed right before an option's text ("B. text", "(B) text", "B) text"). */
function letterBefore(prompt: string, optionText: string): string | undefined {
  return exactLetterBefore(prompt, optionText) ?? listedLetterLike(prompt, optionText);
}

function exactLetterBefore(prompt: string, optionText: string): string | undefined {
  // The first occurrence that is a listing: the text may also appear in quoted sub-task results.
  const lower = prompt.toLowerCase();
  const needle = optionText.toLowerCase();
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
    const before = prompt.slice(Math.max(0, at - 6), at);
    const match = /\(?([A-Z])[.):]\s*$/.exec(before);
    if (match && OPTION_LETTERS.includes(match[1])) return match[1];
  }
  return undefined;
}

/** What a prompt shows of its item: the original, a surface change, a rewording, or a construct flip. */
export function itemView(item: Item, prompt: string): ItemView {
  if (FLIP_WORDING.test(prompt) && !FLIP_WORDING.test(item.stem)) return "flipped";
  const options = item.options ?? [];
  const inOrder = options.every((o, i) => prompt.includes(o) && letterBefore(prompt, o) === OPTION_LETTERS[i]);
  if (prompt.includes(item.stem)) return inOrder ? "original" : "surface";
  return normalise(prompt).includes(normalise(item.stem)) ? "surface" : "reworded";
}

/** A log-prob request without a question (a sentence pair): its continuations shown as the item's options. */
function pairView(item: Item, continuations: readonly string[]): string {
  return `Question: ${item.stem}\n${continuations.map((c, i) => `${OPTION_LETTERS[i]}. ${c.trim()}`).join("\n")}`;
}

/** The index of the continuation that is the item's gold option (its text, or its letter); -1: none. */
function goldContinuation(item: Item, continuations: readonly string[]): number {
  if (item.goldIndex === undefined || !item.options) return -1;
  const gold = item.options[item.goldIndex];
  const byText = continuations.findIndex((c) => sameText(c, gold));
  return byText >= 0 ? byText : continuations.findIndex((c) => c.trim() === OPTION_LETTERS[item.goldIndex!]);
}

function sameText(a: string, b: string): boolean {
  return normalise(a) === normalise(b);
}

/**
 * The letter of the listed option ("B. text") that shows most of this option's words (at least
 * half, and more than any other line): a recased or reworded option is still recognised.
 */
function listedLetterLike(prompt: string, optionText: string): string | undefined {
  const wanted = wordsOf(optionText);
  if (wanted.size === 0) return undefined;
  let best: { letter: string; share: number } | undefined;
  for (const match of prompt.matchAll(/^\(?([A-Z])[.):]\s+(.+)$/gm)) {
    const share = countIn(wanted, wordsOf(match[2])) / Math.max(wanted.size, wordsOf(match[2]).size);
    if (share >= 0.5 && (!best || share > best.share)) best = { letter: match[1], share };
  }
  return best?.letter;
}

function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

function countIn(words: ReadonlySet<string>, shown: ReadonlySet<string>): number {
  let n = 0;
  for (const w of words) if (shown.has(w)) n++;
  return n;
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

/** Standard-normal difficulty from the item's content hash (Box-Muller on two hash uniforms). */
export function itemDifficulty(item: Item): number {
  const content = canonicalJson([item.stem, item.options ?? null, item.goldText ?? null]);
  const u1 = Math.max(uniform(`${content}|d1`), 1e-12);
  const u2 = uniform(`${content}|d2`);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** A uniform draw in [0, 1) from the SHA-256 of a key (53 bits). */
function uniform(key: string): number {
  const hex = sha256(key).slice(0, 14);
  return Number.parseInt(hex, 16) / 2 ** 56;
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
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

function readSimOptions(spec: ModelSpec, studySeed: number): SimOptions {
  const raw = spec.options ?? {};
  const ability = raw.ability ?? SIM_PRESETS[spec.model];
  if (typeof ability !== "number") {
    throw new ProviderError(
      `sim model '${spec.model}' (model id '${spec.id}') needs options.ability (a logit) or a preset name: ${Object.keys(SIM_PRESETS).join(", ")}`,
      "other",
    );
  }
  const bucket = (raw.failure_bucket ?? "rate_limit") as FailureBucket;
  if (!FAILURE_BUCKETS.includes(bucket)) {
    throw new ProviderError(`sim options.failure_bucket must be one of ${FAILURE_BUCKETS.join(", ")}`, "other");
  }
  return {
    studySeed,
    ability,
    latencyMs: Number(raw.latency_ms ?? 0),
    failureRate: Number(raw.failure_rate ?? 0),
    failureBucket: bucket,
    seed: Number(raw.seed ?? 0),
    traceRecognition: Number(raw.trace_recognition ?? SIM_JUDGE.traceRecognition),
    promptEffects: (raw.prompt_effects ?? []) as SimOptions["promptEffects"],
    temperatureEffect: Number(raw.temperature_effect ?? 0),
    logprobShift: Number(raw.logprob_shift ?? 0),
    modelShifts: (raw.model_shifts ?? {}) as Record<string, number>,
    logprobs: raw.logprobs === true,
    ...(raw.surface_noise !== undefined || raw.reword_noise !== undefined || raw.construct_flip !== undefined
      ? {
          perturbation: {
            surface: Number(raw.surface_noise ?? 0),
            reword: Number(raw.reword_noise ?? 0),
            flip: Number(raw.construct_flip ?? 0),
          },
        }
      : {}),
    agent: readAgentOptions(raw.agent),
  };
}

/** The `agent` option (SimOptionsSchema checked its shape): per-role maps merge over the defaults. */
function readAgentOptions(raw: unknown): SimAgentOptions {
  const o = (raw ?? {}) as Record<string, unknown>;
  const roles = (key: "effects" | "toolCalls" | "recovery", value: unknown) => ({
    ...SIM_AGENT_DEFAULTS[key],
    ...((value ?? {}) as Record<string, number>),
  });
  const num = (value: unknown, fallback: number) => (typeof value === "number" ? value : fallback);
  const d = SIM_AGENT_DEFAULTS;
  return {
    effects: roles("effects", o.effects),
    toolCalls: roles("toolCalls", o.tool_calls),
    recovery: roles("recovery", o.recovery),
    toolErrorRate: num(o.tool_error_rate, d.toolErrorRate),
    raterSkill: num(o.rater_skill, d.raterSkill),
    serialisationBugRate: num(o.serialisation_bug_rate, d.serialisationBugRate),
    pdfPageLimitRate: num(o.pdf_page_limit_rate, d.pdfPageLimitRate),
    zeroTokenRate: num(o.zero_token_rate, d.zeroTokenRate),
  };
}

export const simProvider: ProviderFactory = (spec, _env, context) => {
  const options = readSimOptions(spec, context?.studySeed ?? 0);
  return new SimProvider(spec.id, options, spec.drop_params);
};
