/**
 * A rough token count (4 characters per token) for budgets and rate limiting before a call;
 * actual usage always comes from the provider's response.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
