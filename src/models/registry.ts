import { Registry } from "../core/registry.js";
import { anthropicProvider } from "./anthropic.js";
import { googleProvider } from "./google.js";
import { llamaProvider } from "./llama.js";
import { openaiProvider } from "./openai.js";
import { simProvider } from "./sim.js";
import type { ProviderFactory } from "./types.js";

/** Every model backend by name; a spec's `provider` field picks one. */
export const providers = new Registry<ProviderFactory>("provider");
providers.register("sim", simProvider);
providers.register("llama", llamaProvider);
providers.register("openai", openaiProvider);
providers.register("anthropic", anthropicProvider);
providers.register("google", googleProvider);
