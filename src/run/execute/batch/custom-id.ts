import type { GenerateRequest } from "../../../contracts/provider.js";
import { hashValue } from "../../../core/hash.js";

/**
 * A batched request's custom id: a hash of the call's place in the run (trial, execution,
 * sub-call number) and of what it sends. A resumed run renders the same calls and so finds the
 * requests it submitted; a retried trial (next execution) gets new ids. 40 hex characters fit
 * every provider's custom-id rules (OpenAI, Anthropic: [A-Za-z0-9_-]{1,64}).
 */
export function batchCustomId(request: GenerateRequest): string {
  return `px${hashValue({
    call: request.callId ?? null,
    model: request.model,
    messages: request.messages,
    params: request.params,
    tools: request.tools ?? null,
    attempt: request.attempt ?? null,
  }).slice(0, 38)}`;
}
