/**
 * Every model backend by name, as a descriptor; a spec's `provider` field picks one. Provider
 * modules are imported in `create`, so loading this registry (as `plan` and the spec checks
 * do) never loads openai, @anthropic-ai/sdk, @google/genai or node-llama-cpp.
 */
import { Registry } from "../core/registry.js";
import {
  AnthropicOptionsSchema,
  GoogleOptionsSchema,
  LlamaOptionsSchema,
  OpenAIOptionsSchema,
  SimOptionsSchema,
} from "./options.js";
import { llamaEngineProblems } from "./llama/installed.js";
import { llamaSpecProblems } from "./llama/path.js";
import type { ProviderDescriptor } from "./types.js";

/**
 * Batch calls cost half the synchronous price at all three providers (OpenAI Batch API,
 * Anthropic Message Batches, Gemini batch mode; their pricing pages, checked 2025-11).
 */
const BATCH_HALF_PRICE = 0.5;

export const simDescriptor: ProviderDescriptor = {
  name: "sim",
  local: true,
  simulated: true,
  optionsSchema: SimOptionsSchema,
  create: async (spec, env, context) => (await import("./sim/provider.js")).simProvider(spec, env, context),
};

export const llamaDescriptor: ProviderDescriptor = {
  name: "llama",
  local: true,
  optionsSchema: LlamaOptionsSchema,
  create: async (spec, env, context) => (await import("./llama/provider.js")).llamaProvider(spec, env, context),
  specProblems: (spec, context) => [...llamaEngineProblems(), ...llamaSpecProblems(spec, context)],
};

export const openaiDescriptor: ProviderDescriptor = {
  name: "openai",
  local: false,
  optionsSchema: OpenAIOptionsSchema,
  create: async (spec, env) => (await import("./openai.js")).openaiProvider(spec, env),
  batchPriceFactor: BATCH_HALF_PRICE,
};

export const anthropicDescriptor: ProviderDescriptor = {
  name: "anthropic",
  local: false,
  optionsSchema: AnthropicOptionsSchema,
  create: async (spec, env) => (await import("./anthropic.js")).anthropicProvider(spec, env),
  batchPriceFactor: BATCH_HALF_PRICE,
  // ANTHROPIC_DEFAULT_MAX_TOKENS in anthropic.ts (not imported here: it loads the SDK).
  defaultMaxTokens: 1024,
};

export const googleDescriptor: ProviderDescriptor = {
  name: "google",
  local: false,
  optionsSchema: GoogleOptionsSchema,
  create: async (spec, env) => (await import("./google.js")).googleProvider(spec, env),
  batchPriceFactor: BATCH_HALF_PRICE,
};

export const providers = new Registry<ProviderDescriptor>("provider");
for (const descriptor of [simDescriptor, llamaDescriptor, openaiDescriptor, anthropicDescriptor, googleDescriptor]) {
  providers.register(descriptor.name, descriptor);
}
