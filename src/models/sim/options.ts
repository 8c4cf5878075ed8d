/** The sim provider's options as the spec gives them (SimOptionsSchema checked their shape), read into the panel's settings. */
import type { FailureBucket } from "../../contracts/failure.js";
import { FAILURE_BUCKETS } from "../../contracts/failure.js";
import type { ModelSpec } from "../../contracts/spec.js";
import { ProviderError } from "../../core/errors.js";
import { SIM_AGENT_DEFAULTS, type SimAgentOptions } from "./agent.js";
import { SIM_JUDGE } from "./judge.js";
import type { PerturbationSensitivity } from "./perturbation-effects.js";

/** Abilities (logits) of the named presets; any other model name needs options.ability. */
export const SIM_PRESETS: Readonly<Record<string, number>> = {
  weak: -0.5,
  medium: 0.5,
  strong: 1.5,
  oracle: 8,
};

export interface SimOptions {
  /** The spec's top-level seed (the provider create context). */
  studySeed: number;
  ability: number;
  latencyMs: number;
  failureRate: number;
  failureBucket: FailureBucket;
  seed: number;
  /** As a judge: how often a reasoning preface gives away the cot arm (judge.ts). */
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
  /** As an agent in the tool scaffolds (agent.ts). */
  agent: SimAgentOptions;
}

export function readSimOptions(spec: ModelSpec, studySeed: number): SimOptions {
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
