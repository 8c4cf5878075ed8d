/**
 * Mock of the OpenAI REST API (chat completions and the legacy completions endpoint) with
 * the real request/response/error JSON shapes. It enforces what the real API enforces and
 * what the provider must get right: bearer auth, reasoning models rejecting temperature,
 * top_p, stop and max_tokens, unknown top_k, and echo logprobs only with max_tokens 0.
 */
import { Hono } from "hono";
import { json, MockServer, mockTokenize, type RecordedRequest } from "./mock-server.js";

const REASONING = /^(o\d|gpt-5)/;

export function openaiError(status: number, message: string, type: string, code: string | null, param = null) {
  return { kind: "json" as const, status, body: { error: { message, type, param, code } } };
}

export const openaiErrors = {
  rateLimit: (headers: Record<string, string> = {}) => ({
    ...openaiError(
      429,
      "Rate limit reached for gpt-4o-mini in organization org-mock on requests per min (RPM): Limit 3, Used 3, Requested 1.",
      "requests",
      "rate_limit_exceeded",
    ),
    headers,
  }),
  quota: () =>
    openaiError(
      429,
      "You exceeded your current quota, please check your plan and billing details.",
      "insufficient_quota",
      "insufficient_quota",
    ),
  server: (status = 500) =>
    openaiError(
      status,
      "The server had an error while processing your request. Sorry about that!",
      "server_error",
      null,
    ),
  contextLength: () =>
    openaiError(
      400,
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      "invalid_request_error",
      "context_length_exceeded",
    ),
  contentFilter: () =>
    openaiError(
      400,
      "The response was filtered due to the prompt triggering content management policy.",
      "invalid_request_error",
      "content_filter",
    ),
};

function unsupported(param: string, message: string) {
  return json(400, { error: { message, type: "invalid_request_error", param, code: "unsupported_parameter" } });
}

/** The real API's complaints about reasoning-model parameters. */
function reasoningViolation(body: Record<string, unknown>): Response | undefined {
  if (!REASONING.test(String(body.model))) return undefined;
  for (const param of ["temperature", "top_p", "stop"]) {
    if (param in body) return unsupported(param, `Unsupported parameter: '${param}' is not supported with this model.`);
  }
  if ("max_tokens" in body) {
    return unsupported(
      "max_tokens",
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    );
  }
  return undefined;
}

function chatCompletion(body: { model: string; messages: Array<{ role: string; content: string | null }> }) {
  const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
  const content = `echo: ${lastUser?.content ?? ""}`;
  const promptTokens = body.messages.reduce((n, m) => n + mockTokenize(m.content ?? "").length + 3, 0);
  const completionTokens = mockTokenize(content).length;
  return {
    id: "chatcmpl-mock",
    object: "chat.completion",
    created: 1_700_000_000,
    model: body.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
    system_fingerprint: "fp_mock",
  };
}

/** Deterministic per-token logprob so tests can recompute it. */
export function mockLogprob(token: string): number {
  return -(token.trim().length + 1) / 10;
}

/** An echoed prompt with a log-probability per token (`mockLogprob`), as the legacy completions endpoint returns it. */
export function echoChoice(prompt: string, index: number) {
  const tokens = mockTokenize(prompt);
  const offsets: number[] = [];
  let at = 0;
  for (const t of tokens) {
    offsets.push(at);
    at += [...t].length;
  }
  return {
    index,
    text: prompt,
    logprobs: {
      tokens,
      token_logprobs: tokens.map((t, i) => (i === 0 ? null : mockLogprob(t))),
      top_logprobs: tokens.map((t, i) => (i === 0 ? null : { [t]: mockLogprob(t) })),
      text_offset: offsets,
    },
    finish_reason: "length",
  };
}

function completions(body: { model: string; prompt: string | string[]; echo?: boolean; max_tokens?: number }) {
  const prompts = Array.isArray(body.prompt) ? body.prompt : [body.prompt];
  const promptTokens = prompts.reduce((n, p) => n + mockTokenize(p).length, 0);
  return {
    id: "cmpl-mock",
    object: "text_completion",
    created: 1_700_000_000,
    model: body.model,
    choices: prompts.map(echoChoice),
    usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
  };
}

function bearerKey(req: RecordedRequest): string {
  return (req.headers.authorization ?? "").replace(/^Bearer /, "");
}

function authFailure(req: RecordedRequest, keys: readonly string[]): Response | undefined {
  const key = bearerKey(req);
  if (keys.includes(key)) return undefined;
  // The real API masks the middle of the key; echoing it whole tests our redaction harder.
  return json(401, {
    error: {
      message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    },
  });
}

/** `serverErrorKeys`: keys accepted but always answered with a 500 (an account the server fails for). */
export async function startOpenAIMock(
  keys: readonly string[],
  options: { serverErrorKeys?: readonly string[] } = {},
): Promise<MockServer> {
  const mock = new MockServer();
  const app = new Hono();
  app.post("/v1/chat/completions", async (c) => {
    const req = await mock.record(c);
    const denied = authFailure(req, keys);
    if (denied) return denied;
    if (options.serverErrorKeys?.includes(bearerKey(req))) {
      const failure = openaiErrors.server();
      return json(failure.status, failure.body);
    }
    const scripted = mock.scripted();
    if (scripted) return scripted;
    const violation = reasoningViolation(req.body);
    if (violation) return violation;
    if ("top_k" in req.body) {
      return json(400, {
        error: {
          message: "Unrecognized request argument supplied: top_k",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      });
    }
    return json(200, chatCompletion(req.body), { "x-request-id": "req_mock" });
  });
  app.post("/v1/completions", async (c) => {
    const req = await mock.record(c);
    const denied = authFailure(req, keys);
    if (denied) return denied;
    const scripted = mock.scripted();
    if (scripted) return scripted;
    if (req.body.echo !== true || req.body.max_tokens !== 0 || typeof req.body.logprobs !== "number") {
      return json(400, {
        error: {
          message: "mock expects echo, logprobs and max_tokens 0",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      });
    }
    return json(200, completions(req.body));
  });
  return mock.start(app);
}
