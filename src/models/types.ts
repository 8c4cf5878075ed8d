import type { z } from "zod";
import type { Provider } from "../contracts/provider.js";
import type { ModelSpec } from "../contracts/spec.js";

/** Environment the factory may read API keys from (process.env in the CLI; a fixture in tests). */
export type ProviderEnv = Readonly<Record<string, string | undefined>>;

/**
 * What the study gives every provider it builds, beyond the model entry: the study-level
 * `seed` of the spec. Providers that draw (the simulated panel) derive their draws from it;
 * the others ignore it.
 */
export interface ProviderCreateContext {
  /** The spec's top-level `seed` (default 0). */
  studySeed: number;
  /** The spec file's directory: a local provider resolves relative file paths against it. */
  specDir?: string;
}

/** Builds a provider for one model entry of the spec. One factory per provider file. */
export type ProviderFactory = (spec: ModelSpec, env: ProviderEnv, context?: ProviderCreateContext) => Provider;

/**
 * What a provider says about itself, without loading its module: the registry holds these,
 * so planning and spec checks never import an SDK. `create` imports the provider module (and
 * its SDK) on first use.
 */
export interface ProviderDescriptor {
  readonly name: string;
  /** Runs on this machine: its calls cost nothing unless the spec gives a price. */
  readonly local: boolean;
  /** Its outputs are synthetic (the sim panel); reports label them. */
  readonly simulated?: boolean;
  /**
   * The spec's `models[].options` for this provider (strict: unknown keys are errors). A
   * provider without one takes no options: any option given is refused when the spec loads.
   */
  readonly optionsSchema?: z.ZodType;
  create(spec: ModelSpec, env: ProviderEnv, context?: ProviderCreateContext): Promise<Provider>;
  /**
   * Problems of a model entry that the spec can be refused for at load (e.g. a missing local
   * model file), without creating the provider. Paths are relative to the model entry.
   */
  specProblems?(spec: ModelSpec, context?: { specDir?: string }): SpecEntryProblem[];
  /**
   * Present when the provider has a batch API (`execution.mode: batch`): the share of the
   * synchronous price a batched call costs (0.5: half price).
   */
  readonly batchPriceFactor?: number;
  /** The max_tokens the provider sends when the spec sets none (Anthropic requires one). */
  readonly defaultMaxTokens?: number;
}

/** A problem of one model entry: the field (relative to the entry) and what was expected. */
export interface SpecEntryProblem {
  path: string[];
  message: string;
}
