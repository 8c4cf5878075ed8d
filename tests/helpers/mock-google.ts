/**
 * Mock of the Gemini API generateContent endpoint (v1beta) with the real shapes: the key
 * in x-goog-api-key, errors as {"error":{"code","message","status","details"}}, 429
 * RESOURCE_EXHAUSTED with a google.rpc.RetryInfo delay.
 */
import { Hono } from "hono";
import { json, MockServer, mockTokenize } from "./mock-server.js";

export function googleError(
  code: number,
  status: string,
  message: string,
  details: Array<Record<string, unknown>> = [],
) {
  return { kind: "json" as const, status: code, body: { error: { code, message, status, details } } };
}

export const googleErrors = {
  exhausted: (retryDelay?: string) =>
    googleError(
      429,
      "RESOURCE_EXHAUSTED",
      "You exceeded your current quota, please check your plan and billing details.",
      retryDelay ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay }] : [],
    ),
  unavailable: () => googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
  internal: () => googleError(500, "INTERNAL", "An internal error has occurred."),
  tooLong: () =>
    googleError(
      400,
      "INVALID_ARGUMENT",
      "The input token count (1200345) exceeds the maximum number of tokens allowed (1048576).",
    ),
};

// biome-ignore lint/suspicious/noExplicitAny: the mock reads the raw request JSON
function response(model: string, body: any) {
  const last = body.contents[body.contents.length - 1];
  const text = `echo: ${last.parts.map((p: { text?: string }) => p.text ?? "").join("")}`;
  const prompt = mockTokenize(JSON.stringify(body.contents)).length;
  const out = mockTokenize(text).length;
  return {
    candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out },
    modelVersion: model,
    responseId: "mock-response",
  };
}

export async function startGoogleMock(keys: readonly string[]): Promise<MockServer> {
  const mock = new MockServer();
  const app = new Hono();
  app.post("/:version/models/:call", async (c) => {
    const req = await mock.record(c);
    const [model, method] = c.req.param("call").split(":");
    if (method !== "generateContent")
      return json(404, { error: { code: 404, message: "not found", status: "NOT_FOUND" } });
    const key = req.headers["x-goog-api-key"] ?? "";
    if (!keys.includes(key)) {
      return json(400, {
        error: {
          code: 400,
          message: `API key not valid. Please pass a valid API key. (${key})`,
          status: "INVALID_ARGUMENT",
          details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
        },
      });
    }
    const scripted = mock.scripted();
    if (scripted) return scripted;
    return json(200, response(model, req.body));
  });
  return mock.start(app);
}
