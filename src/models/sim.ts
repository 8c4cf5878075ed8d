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
 * wording shift the logit. At temperature 0 the draw is fixed per (model, prompt); above it,
 * the seed parameter enters the draw, so different seeds give independent answers.
 */
import type { FailureBucket } from "../contracts/failure.js";
import { FAILURE_BUCKETS } from "../contracts/failure.js";
import { type Item, OPTION_LETTERS } from "../contracts/item.js";
import type { Capability, GenerateRequest, GenerateResult, Provider } from "../contracts/provider.js";
import type { ModelSpec } from "../contracts/spec.js";
import { ProviderError } from "../core/errors.js";
import { canonicalJson, sha256 } from "../core/hash.js";
import { estimateTokens } from "../core/tokens.js";
import { applyParamPolicy, fromSpecParamNames } from "./policy.js";
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

/** Abilities (logits) of the named presets; any other model name needs options.ability. */
export const SIM_PRESETS: Readonly<Record<string, number>> = {
  weak: -0.5,
  medium: 0.5,
  strong: 1.5,
  oracle: 8,
};

interface SimOptions {
  ability: number;
  latencyMs: number;
  failureRate: number;
  failureBucket: FailureBucket;
  seed: number;
}

interface KeyEntry {
  item: Item;
  difficulty: number;
}

const CAPABILITIES: ReadonlySet<Capability> = new Set(["generate", "system_prompt", "seed", "temperature"]);

export class SimProvider implements Provider {
  readonly name = "sim";
  readonly simulated = true;
  private readonly byQuestion = new Map<string, KeyEntry>();
  private calls = 0;

  constructor(
    private readonly modelId: string,
    private readonly options: SimOptions,
    private readonly extraDrops: ModelSpec["drop_params"] = [],
  ) {}

  capabilities(): ReadonlySet<Capability> {
    return CAPABILITIES;
  }

  observeItems(items: readonly Item[]): void {
    for (const item of items) {
      this.byQuestion.set(normalise(item.stem), { item, difficulty: itemDifficulty(item) });
    }
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const callIndex = this.calls++;
    const { params, dropped } = applyParamPolicy("sim", request.model, request.params, fromSpecParamNames(this.extraDrops));
    if (this.options.latencyMs > 0) await sleep(this.options.latencyMs, request.signal);
    this.maybeFail(callIndex);
    const prompt = request.messages.map((m) => m.content).join("\n\n");
    const drawKey = canonicalJson([
      this.options.seed,
      this.modelId,
      request.messages,
      (params.temperature ?? 0) > 0 ? (params.seed ?? null) : "greedy",
    ]);
    const text = this.respond(prompt, drawKey);
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

  private maybeFail(callIndex: number): void {
    if (this.options.failureRate <= 0) return;
    const u = uniform(`${this.options.seed}|fail|${this.modelId}|${callIndex}`);
    if (u < this.options.failureRate) {
      const retryable = this.options.failureBucket === "rate_limit" || this.options.failureBucket === "timeout";
      throw new ProviderError(`simulated ${this.options.failureBucket}`, this.options.failureBucket, { retryable });
    }
  }

  private respond(prompt: string, drawKey: string): string {
    const entry = this.findItem(prompt);
    if (entry === undefined) return "I could not find a question to answer.\nAnswer: unknown";
    const { item } = entry;
    const options = item.options ?? [];
    const visible = options.length > 0 && options.every((option) => prompt.includes(option));
    const logit = this.options.ability - entry.difficulty + promptEffects(prompt) + (visible ? 0 : SIM_EFFECTS.openEnded);
    const correct = uniform(drawKey) < sigmoid(logit);
    const preface = reasoningPreface(prompt);
    if (visible) return preface + `Answer: ${this.chooseLetter(prompt, item, correct, drawKey)}`;
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
    return undefined;
  }
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
  return /step by step/i.test(prompt) ? "Let me work through this step by step.\nFirst, I consider each possibility.\n" : "";
}

/** The option letter printed right before an option's text ("B. text", "(B) text", "B) text"). */
function letterBefore(prompt: string, optionText: string): string | undefined {
  const at = prompt.indexOf(optionText);
  if (at < 0) return undefined;
  const before = prompt.slice(Math.max(0, at - 6), at);
  const match = /\(?([A-Z])[.):]\s*$/.exec(before);
  return match && OPTION_LETTERS.includes(match[1]) ? match[1] : undefined;
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

function readSimOptions(spec: ModelSpec): SimOptions {
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
    ability,
    latencyMs: Number(raw.latency_ms ?? 0),
    failureRate: Number(raw.failure_rate ?? 0),
    failureBucket: bucket,
    seed: Number(raw.seed ?? 0),
  };
}

export const simProvider: ProviderFactory = (spec) => {
  const options = readSimOptions(spec);
  return new SimProvider(spec.id, options, spec.drop_params);
};
