import type { z } from "zod";
import type { Provider } from "../contracts/provider.js";
import type { ModelSpec } from "../contracts/spec.js";

/** Environment the factory may read API keys from (process.env in the CLI; a fixture in tests). */
export type ProviderEnv = Readonly<Record<string, string | undefined>>;

/**
 * Builds a provider for one model entry of the spec. One factory per provider file.
 * `optionsSchema` (strict) declares the spec's `models[].options` it reads; the spec is checked
 * against it when it loads (facets/validate.ts).
 */
export type ProviderFactory = ((spec: ModelSpec, env: ProviderEnv) => Provider) & { optionsSchema?: z.ZodType };
