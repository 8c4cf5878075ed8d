import type { ChatMessage, GenerationParams, ToolSpec } from "../../contracts/provider.js";
import { hashValue } from "../../core/hash.js";
import type { ModelRuntime } from "./types.js";

/**
 * Content address of a request: the model entry that sends it, the messages, parameters and the
 * attempt index, so repeated attempts of the same trial stay independent draws. Each model entry
 * is its own subject: its id and everything that sets how it is called (provider, endpoint,
 * model, options, the environment variables its keys come from, the parameters it drops) are in
 * the key, so two entries never share a reply, even when they differ only in their key. The
 * variables' names are; their values (the keys) never are.
 */
export function cacheKey(
  model: Pick<ModelRuntime, "spec" | "provider">,
  request: { messages: ChatMessage[]; params: GenerationParams; attempt: number; tools?: ToolSpec[] },
): string {
  const { messages, params, attempt, tools } = request;
  const { spec } = model;
  return hashValue({
    entry: spec.id,
    provider: model.provider.name,
    baseUrl: spec.base_url ?? null,
    model: spec.model,
    options: spec.options ?? null,
    apiKeyEnv: spec.api_key_env ?? null,
    dropParams: spec.drop_params ?? null,
    messages,
    params,
    attempt,
    // Only agent calls offer tools; without them the key is what it always was.
    ...(tools?.length ? { tools } : {}),
  });
}
