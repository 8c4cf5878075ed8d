/**
 * Each provider's `models[].options`, as a strict zod schema. These live apart from the
 * provider modules so that checking a spec never loads a provider SDK; the schemas list only
 * the keys each provider really reads (see its file), so a misspelt option is an error.
 */
import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import { FAILURE_BUCKETS } from "../contracts/failure.js";

const positive = lazySchema(() => z.number().positive());
const probability = lazySchema(() => z.number().min(0).max(1));

/** Per agent role (S1 agent, S2 actor, S3 executor) values of the sim's agent behaviour. */
const agentRoles = (value: z.ZodNumber) =>
  z.object({ agent: value.optional(), actor: value.optional(), executor: value.optional() }).strict();

/** sim/agent.ts: the simulated panel's behaviour in the agent scaffolds (docs/SIMULATION.md). */
export const SimAgentOptionsSchema = lazySchema(() =>
  z
    .object({
      /** Logit shift of the final answer by role: the planted model x scaffold accuracy. */
      effects: agentRoles(z.number()).optional(),
      /** Mean tool calls before submitting, by role. */
      tool_calls: agentRoles(z.number().min(0)).optional(),
      tool_error_rate: probability.optional(),
      /** Probability of recovering from a mid-trajectory tool error, by role. */
      recovery: agentRoles(probability).optional(),
      rater_skill: z.number().optional(),
      serialisation_bug_rate: probability.optional(),
      pdf_page_limit_rate: probability.optional(),
      zero_token_rate: probability.optional(),
    })
    .strict(),
);

/** sim/options.ts (readSimOptions): the planted ability, latency, failure injection and seed. */
export const SimOptionsSchema = lazySchema(() =>
  z
    .object({
      ability: z.number().optional(),
      latency_ms: z.number().min(0).optional(),
      failure_rate: z.number().min(0).max(1).optional(),
      failure_bucket: z.enum(FAILURE_BUCKETS).optional(),
      seed: z.number().optional(),
      /** As a judge: how often a reasoning preface left in a response gives away the cot arm. */
      trace_recognition: z.number().min(0).max(1).optional(),
      /** Offer the log-prob scoring path (continuation log-likelihoods). */
      logprobs: z.boolean().optional(),
      /** Planted perturbation sensitivity (docs/SIMULATION.md): fresh-draw chance on a surface change ... */
      surface_noise: z.number().min(0).max(1).optional(),
      /** ... on a reworded question ... */
      reword_noise: z.number().min(0).max(1).optional(),
      /** ... and the chance of answering away from the key when the question asks for the opposite construct. */
      construct_flip: z.number().min(0).max(1).optional(),
      agent: SimAgentOptionsSchema.optional(),
      /** Planted grid effects (docs/SIMULATION.md): a logit shift where the prompt contains a text (a template's wording). */
      prompt_effects: z.array(z.object({ contains: z.string().min(1), shift: z.number() }).strict()).optional(),
      /** Planted decoding effect: logit shift per unit of temperature. */
      temperature_effect: z.number().optional(),
      /** Planted scoring-path effect: logit shift of log-prob ranking relative to generating. */
      logprob_shift: z.number().optional(),
      /** Planted quantization effect: logit shift by the provider model id a request names (a `quantizations` variant). */
      model_shifts: z.record(z.string().min(1), z.number()).optional(),
    })
    .strict(),
);

/** llama/: where the GGUF is found, context, batch, threads and the chat template. */
export const LlamaOptionsSchema = lazySchema(() =>
  z
    .object({
      baseDir: z.string().min(1).optional(),
      base_dir: z.string().min(1).optional(),
      context_size: z.number().int().min(16).optional(),
      batch_size: z.number().int().min(8).optional(),
      threads: z.number().int().positive().default(1),
      chat_template: z.enum(["plain", "model"]).default("plain"),
      tool_choice: z.enum(["auto", "required"]).default("auto"),
    })
    .strict(),
);

export type LlamaOptions = z.infer<typeof LlamaOptionsSchema>;

/** openai.ts (readOptions parses with it): the completions log-prob path, top_k, reasoning override, per-key rpm. */
export const OpenAIOptionsSchema = lazySchema(() =>
  z
    .object({
      completions_logprobs: z.boolean().optional(),
      top_k: z.boolean().optional(),
      reasoning: z.boolean().optional(),
      rpm_per_key: positive.optional(),
    })
    .strict(),
);

/** anthropic.ts (readRpmPerKey): per-key rpm only. */
export const AnthropicOptionsSchema = lazySchema(() => z.object({ rpm_per_key: positive.optional() }).strict());

/** google.ts (readOptions): the API version path and per-key rpm. */
export const GoogleOptionsSchema = lazySchema(() =>
  z.object({ api_version: z.string().min(1).optional(), rpm_per_key: positive.optional() }).strict(),
);
