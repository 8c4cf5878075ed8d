import type { ChatMessage, GenerationParams, ToolSpec } from "../../contracts/provider.js";
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
  tools?: ToolSpec[],
): string {
  return hashValue({
    provider: model.provider.name,
    baseUrl: model.spec.base_url ?? null,
    model: model.spec.model,
    options: model.spec.options ?? null,
    messages,
    params,
    attempt,
    // Only agent calls offer tools; without them the key is what it always was.
    ...(tools?.length ? { tools } : {}),
  });
}
