import type { ChatMessage, GenerationParams } from "../../contracts/provider.js";
import { hashValue } from "../../core/hash.js";
import type { ModelRuntime } from "./types.js";

/**
 * Content address of a request: provider, endpoint, model, messages, parameters and the
 * attempt index, so repeated attempts of the same trial stay independent draws.
 */
export function cacheKey(
  model: ModelRuntime,
  messages: ChatMessage[],
  params: GenerationParams,
  attempt: number,
): string {
  return hashValue({
    provider: model.provider.name,
    baseUrl: model.spec.base_url ?? null,
    model: model.spec.model,
    options: model.spec.options ?? null,
    messages,
    params,
    attempt,
  });
}
