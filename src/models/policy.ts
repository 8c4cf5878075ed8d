/**
 * Per-provider parameter policy: which decoding parameters a provider/model rejects or
 * lacks, dropped before the call with a reason. Drops are returned (and recorded on the
 * trial), never silent: the asymmetry LiteLLM's drop_params hid (scaffold-safety App. J).
 */
import type { DroppedParam, GenerationParams, ParamName } from "../contracts/provider.js";
import type { SpecGenerationParams } from "../contracts/spec.js";

const SPEC_TO_PARAM = {
  temperature: "temperature",
  top_p: "topP",
  top_k: "topK",
  max_tokens: "maxTokens",
  seed: "seed",
  stop: "stop",
} as const satisfies Record<keyof SpecGenerationParams, ParamName>;

type SpecParamName = keyof typeof SPEC_TO_PARAM;

/** The spec's snake_case params as provider-neutral GenerationParams. */
export function fromSpecParams(params: SpecGenerationParams): GenerationParams {
  const out: GenerationParams = {};
  for (const [key, value] of Object.entries(params) as [SpecParamName, unknown][]) {
    if (value !== undefined) (out as Record<string, unknown>)[SPEC_TO_PARAM[key]] = value;
  }
  return out;
}

/** spec.drop_params (snake_case) as ParamNames. */
export function fromSpecParamNames(names: readonly SpecParamName[] | undefined): ParamName[] {
  return (names ?? []).map((name) => SPEC_TO_PARAM[name]);
}

/** Traits a provider knows from the spec's options rather than the model name. */
export interface PolicyTraits {
  /** Force (true) or deny (false) the OpenAI reasoning-model rules, e.g. for a deployment alias. */
  reasoning?: boolean;
  /** The OpenAI-compatible server accepts top_k (vLLM, Together, OpenRouter). */
  topK?: boolean;
}

/**
 * OpenAI reasoning models: o1/o3/o4 families and gpt-5 (not the gpt-5*-chat variants).
 * Accepts an "openai/" router prefix (OpenRouter).
 */
export function isOpenAIReasoningModel(model: string): boolean {
  const name = model.replace(/^openai\//, "");
  if (/^gpt-5(\.\d+)?-chat/.test(name)) return false;
  return /^o\d(-|$)/.test(name) || /^gpt-5(\b|[.-])/.test(name);
}

type Rule = { name: ParamName; reason: string; when?: (params: GenerationParams) => boolean };

function rulesFor(provider: string, model: string, traits: PolicyTraits): Rule[] {
  switch (provider) {
    case "anthropic":
      return [
        { name: "seed", reason: "the Anthropic Messages API has no seed parameter" },
        {
          name: "topP",
          reason: "Anthropic rejects temperature together with top_p; temperature kept",
          when: (p) => p.temperature !== undefined,
        },
      ];
    case "openai":
      return openaiRules(model, traits);
    default:
      return [];
  }
}

function openaiRules(model: string, traits: PolicyTraits): Rule[] {
  const rules: Rule[] = [];
  if (!traits.topK) rules.push({ name: "topK", reason: "OpenAI chat completions has no top_k" });
  if (traits.reasoning ?? isOpenAIReasoningModel(model)) {
    const why = "OpenAI reasoning models (o-series, gpt-5) reject";
    rules.push(
      { name: "temperature", reason: `${why} temperature` },
      { name: "topP", reason: `${why} top_p` },
      { name: "stop", reason: `${why} stop sequences` },
    );
  }
  return rules;
}

export interface PolicyOutcome {
  params: GenerationParams;
  dropped: DroppedParam[];
}

/**
 * Applies the provider's rules, then `extraDrops` (the spec's drop_params). Only parameters
 * that are set can be dropped; each drop carries its value and a reason.
 */
export function applyParamPolicy(
  provider: string,
  model: string,
  params: GenerationParams,
  options: { extraDrops?: readonly ParamName[]; traits?: PolicyTraits } = {},
): PolicyOutcome {
  const { extraDrops = [], traits = {} } = options;
  const kept: GenerationParams = { ...params };
  const dropped: DroppedParam[] = [];
  const drop = (name: ParamName, reason: string) => {
    if (kept[name] === undefined) return;
    dropped.push({ name, value: kept[name], reason });
    delete kept[name];
  };
  for (const rule of rulesFor(provider, model, traits)) {
    if (!rule.when || rule.when(params)) drop(rule.name, rule.reason);
  }
  for (const name of extraDrops) drop(name, "listed in the model's drop_params");
  return { params: kept, dropped };
}
