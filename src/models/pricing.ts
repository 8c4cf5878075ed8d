/**
 * Prices in USD per million tokens. The built-in table is a convenience with a date on it;
 * list prices change, so a spec's `price` (per model) or `prices` (per provider model id)
 * always wins. An unknown price costs 0 and is flagged, never a crash.
 */
import type { TokenUsage } from "../contracts/provider.js";
import type { ModelSpec, Price } from "../contracts/spec.js";
import { providers } from "./registry.js";

/** When the built-in list prices were last checked (standard tier, no batch/cache discounts). */
export const BUILTIN_PRICES_AS_OF = "2025-11";

const p = (input: number, output: number): Price => ({ input_per_mtok: input, output_per_mtok: output });

export const BUILTIN_PRICES: Readonly<Record<string, Price>> = {
  "gpt-4o": p(2.5, 10),
  "gpt-4o-mini": p(0.15, 0.6),
  "gpt-4.1": p(2, 8),
  "gpt-4.1-mini": p(0.4, 1.6),
  "gpt-4.1-nano": p(0.1, 0.4),
  o3: p(2, 8),
  "o4-mini": p(1.1, 4.4),
  "gpt-5": p(1.25, 10),
  "gpt-5-mini": p(0.25, 2),
  "gpt-5-nano": p(0.05, 0.4),
  "claude-opus-4-1": p(15, 75),
  "claude-opus-4-5": p(5, 25),
  "claude-sonnet-4-5": p(3, 15),
  "claude-sonnet-4": p(3, 15),
  "claude-haiku-4-5": p(1, 5),
  "claude-3-5-haiku": p(0.8, 4),
  "gemini-2.5-pro": p(1.25, 10),
  "gemini-2.5-flash": p(0.3, 2.5),
  "gemini-2.5-flash-lite": p(0.1, 0.4),
  "gemini-2.0-flash": p(0.1, 0.4),
};

/**
 * Largest output of each model (tokens), from the providers' model pages as of
 * `BUILTIN_PRICES_AS_OF`: a call's worst-case cost when the spec sets no max_tokens.
 */
export const BUILTIN_MAX_OUTPUT_TOKENS: Readonly<Record<string, number>> = {
  "gpt-4o": 16_384,
  "gpt-4o-mini": 16_384,
  "gpt-4.1": 32_768,
  "gpt-4.1-mini": 32_768,
  "gpt-4.1-nano": 32_768,
  o3: 100_000,
  "o4-mini": 100_000,
  "gpt-5": 128_000,
  "gpt-5-mini": 128_000,
  "gpt-5-nano": 128_000,
  "claude-opus-4-1": 32_000,
  "claude-opus-4-5": 64_000,
  "claude-sonnet-4-5": 64_000,
  "claude-sonnet-4": 64_000,
  "claude-haiku-4-5": 64_000,
  "claude-3-5-haiku": 8_192,
  "gemini-2.5-pro": 65_536,
  "gemini-2.5-flash": 65_536,
  "gemini-2.5-flash-lite": 65_536,
  "gemini-2.0-flash": 8_192,
};

/**
 * The most output tokens one call of the model can return: the spec's max_tokens, else the
 * max_tokens its provider sends by default, else the model's maximum from the built-in table;
 * undefined when none is known (no upper bound on its cost).
 */
export function maxOutputTokens(spec: Pick<ModelSpec, "provider" | "model" | "params">): number | undefined {
  if (spec.params.max_tokens !== undefined) return spec.params.max_tokens;
  const providerDefault = providers.has(spec.provider) ? providers.get(spec.provider).defaultMaxTokens : undefined;
  return providerDefault ?? builtinTableEntry(BUILTIN_MAX_OUTPUT_TOKENS, spec.model);
}

function builtinTableEntry<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  const bare = model.replace(/^[a-z-]+\//, "");
  const undated = bare.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, "").replace(/-latest$/, "");
  return table[bare] ?? table[undated];
}

/**
 * Built-in price for a model id, tolerating a router prefix ("openai/gpt-4o") and a dated
 * snapshot suffix ("gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929"). Exact names only
 * otherwise, so "gpt-4o-mini" never inherits the "gpt-4o" price.
 */
export function builtinPrice(model: string): Price | undefined {
  return builtinTableEntry(BUILTIN_PRICES, model);
}

export type PriceSource = "spec" | "study" | "builtin" | "unknown";

export interface ResolvedPrice {
  price?: Price;
  source: PriceSource;
}

/** Model `price` > study `prices[model]` (also tried by the spec's model label) > built-in. */
export function resolvePrice(
  model: Pick<ModelSpec, "id" | "model" | "price">,
  studyPrices?: Readonly<Record<string, Price>>,
): ResolvedPrice {
  if (model.price) return { price: model.price, source: "spec" };
  const study = studyPrices?.[model.model] ?? studyPrices?.[model.id];
  if (study) return { price: study, source: "study" };
  const builtin = builtinPrice(model.model);
  return builtin ? { price: builtin, source: "builtin" } : { source: "unknown" };
}

/**
 * The price a model's calls are charged at, or undefined when none is known (its cost is then
 * reported as unknown). A local provider (its descriptor says so) costs nothing unless the
 * spec gives a price.
 */
export function modelPrice(spec: ModelSpec, studyPrices?: Readonly<Record<string, Price>>): Price | undefined {
  const local = providers.has(spec.provider) && providers.get(spec.provider).local;
  if (local && !spec.price) return { input_per_mtok: 0, output_per_mtok: 0 };
  return resolvePrice(spec, studyPrices).price;
}

export interface Cost {
  usd: number;
  /** False when no price was known: usd is 0 and the report should say "price unknown". */
  priceKnown: boolean;
}

export function costUsd(usage: TokenUsage, price: Price | undefined): Cost {
  if (!price) return { usd: 0, priceKnown: false };
  const usd = (usage.inputTokens * price.input_per_mtok + usage.outputTokens * price.output_per_mtok) / 1e6;
  return { usd, priceKnown: true };
}

/**
 * The price of a model's calls in batch mode: its synchronous price times its provider's batch
 * factor (descriptor `batchPriceFactor`); the synchronous price for a provider without a batch API.
 */
export function batchPrice(spec: ModelSpec, studyPrices?: Readonly<Record<string, Price>>): Price | undefined {
  const price = modelPrice(spec, studyPrices);
  const factor = providers.has(spec.provider) ? providers.get(spec.provider).batchPriceFactor : undefined;
  if (!price || factor === undefined) return price;
  return { input_per_mtok: price.input_per_mtok * factor, output_per_mtok: price.output_per_mtok * factor };
}

/** Whether a model's calls go through its provider's batch API in batch mode. */
export function batchable(spec: Pick<ModelSpec, "provider">): boolean {
  return providers.has(spec.provider) && providers.get(spec.provider).batchPriceFactor !== undefined;
}
