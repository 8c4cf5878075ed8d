// Public API of the providers layer. The SDK-backed providers are reached through their
// descriptors (`providers.get(name).create(spec, env)`), so importing this index loads no SDK.
export {
  AnthropicOptionsSchema,
  GoogleOptionsSchema,
  LlamaOptionsSchema,
  OpenAIOptionsSchema,
  SimOptionsSchema,
} from "./options.js";
export { applyParamPolicy, fromSpecParams } from "./policy.js";
export { BUILTIN_PRICES, costUsd, resolvePrice } from "./pricing.js";
export {
  anthropicDescriptor,
  googleDescriptor,
  llamaDescriptor,
  openaiDescriptor,
  providers,
  simDescriptor,
} from "./registry.js";
export { resilienceFromSpec, withResilience } from "./resilience.js";
export { SIM_EFFECTS } from "./sim/format-effects.js";
export { SIM_PRESETS } from "./sim/options.js";
export { SimProvider, simProvider } from "./sim/provider.js";
export type { ProviderCreateContext, ProviderDescriptor, ProviderEnv, ProviderFactory } from "./types.js";
