/**
 * Mock of the Anthropic Messages API with the real shapes. Like the real API it requires
 * x-api-key, anthropic-version and max_tokens, rejects unknown fields (seed) and
 * temperature together with top_p, and answers errors as {"type":"error","error":{...}}.
 */
import { Hono } from "hono";
import { json, MockServer, mockTokenize } from "./mock-server.js";

export function anthropicError(status: number, type: string, message: string, headers: Record<string, string> = {}) {
  return {
    kind: "json" as const,
    status,
    body: { type: "error", error: { type, message }, request_id: "req_mock" },
    headers: { "request-id": "req_mock", ...headers },
  };
}

export const anthropicErrors = {
  rateLimit: (headers: Record<string, string> = {}) =>
    anthropicError(
      429,
      "rate_limit_error",
      "This request would exceed the rate limit for your organization of 50 requests per minute.",
      headers,
    ),
  overloaded: () => anthropicError(529, "overloaded_error", "Overloaded"),
  api: () => anthropicError(500, "api_error", "Internal server error"),
  promptTooLong: () =>
    anthropicError(400, "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"),
};

const KNOWN_FIELDS = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "tools",
  "tool_choice",
  "metadata",
  "stream",
]);

function invalid(message: string) {
  return json(400, { type: "error", error: { type: "invalid_request_error", message }, request_id: "req_mock" });
}

// biome-ignore lint/suspicious/noExplicitAny: the mock reads the raw request JSON
function validate(body: any): Response | undefined {
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key)) return invalid(`${key}: Extra inputs are not permitted`);
  }
  if (typeof body.max_tokens !== "number") return invalid("max_tokens: Field required");
  if (body.temperature !== undefined && body.top_p !== undefined) {
    return invalid("`temperature` and `top_p` cannot both be specified for this model. Please use only one.");
  }
  if (body.messages?.some((m: { role: string }) => m.role === "system")) {
    return invalid('messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter');
  }
  return undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: the mock reads the raw request JSON
function message(body: any) {
  const last = body.messages[body.messages.length - 1];
  const lastText = Array.isArray(last.content)
    ? last.content.map((b: { text?: string }) => b.text ?? "").join("")
    : String(last.content);
  const text = `echo: ${lastText}`;
  return {
    id: "msg_mock",
    type: "message",
    role: "assistant",
    model: body.model,
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: mockTokenize(JSON.stringify(body.messages)).length,
      output_tokens: mockTokenize(text).length,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

export async function startAnthropicMock(keys: readonly string[]): Promise<MockServer> {
  const mock = new MockServer();
  const app = new Hono();
  app.post("/v1/messages", async (c) => {
    const req = await mock.record(c);
    const key = req.headers["x-api-key"] ?? "";
    if (!keys.includes(key)) {
      return json(401, {
        type: "error",
        error: { type: "authentication_error", message: `invalid x-api-key ${key}` },
        request_id: "req_mock",
      });
    }
    if (!req.headers["anthropic-version"]) return invalid("anthropic-version: header is required");
    const scripted = mock.scripted();
    if (scripted) return scripted;
    return validate(req.body) ?? json(200, message(req.body), { "request-id": "req_mock" });
  });
  return mock.start(app);
}
