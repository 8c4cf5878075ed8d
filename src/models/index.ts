// Public API of the providers layer.
export { anthropicProvider } from "./anthropic.js";
export { googleProvider } from "./google.js";
export { llamaProvider } from "./llama.js";
export { openaiProvider } from "./openai.js";
export { applyParamPolicy, fromSpecParams } from "./policy.js";
export { BUILTIN_PRICES, costUsd, resolvePrice } from "./pricing.js";
export { providers } from "./registry.js";
export { resilienceFromSpec, withResilience } from "./resilience.js";
export { SIM_EFFECTS, SIM_PRESETS, SimProvider, simProvider } from "./sim.js";
export type { ProviderEnv, ProviderFactory } from "./types.js";
