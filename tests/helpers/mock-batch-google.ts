/**
 * The Gemini API batch mode wire format (and :generateContent answering alike):
 * POST /v1beta/models/{model}:batchGenerateContent with inlined requests (metadata.key), GET
 * /v1beta/batches/{id} whose metadata holds the state, the display name given at creation and,
 * once ended, the inlined responses; GET /v1beta/batches (pageSize, pageToken; operations,
 * nextPageToken), the jobs listed newest first.
 */
import { Hono } from "hono";
import { BatchMockState, type MockBatch, type RequestFate, tokenCount } from "./mock-batch.js";
import { json, MockServer } from "./mock-server.js";

interface Part {
  text?: string;
}
interface GenerateBody {
  contents: Array<{ role: string; parts: Part[] }>;
  systemInstruction?: { parts: Part[] };
}

function lastUser(body: GenerateBody): string {
  const c = [...body.contents].reverse().find((x) => x.role === "user");
  return (c?.parts ?? []).map((p) => p.text ?? "").join("");
}

function promptTokens(body: GenerateBody): number {
  const system = (body.systemInstruction?.parts ?? []).map((p) => p.text ?? "").join("");
  return (
    tokenCount(system) + body.contents.reduce((n, c) => n + tokenCount(c.parts.map((p) => p.text ?? "").join("")), 0)
  );
}

function response(body: GenerateBody, text: string) {
  const prompt = promptTokens(body);
  const out = tokenCount(text);
  return {
    candidates: [{ content: { parts: [{ text }], role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out },
    modelVersion: "gemini-mock",
  };
}

function failure(fate: RequestFate & { kind: "fail" }) {
  return fate.failure === "server"
    ? { code: 500, message: "Internal error encountered.", status: "INTERNAL" }
    : {
        code: 400,
        message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      };
}

export interface GoogleBatchMock {
  server: MockServer;
  state: BatchMockState;
}

export async function startGoogleBatchMock(key: string): Promise<GoogleBatchMock> {
  const server = new MockServer();
  const state = new BatchMockState();
  const bodies = new Map<string, GenerateBody[]>();
  const models = new Map<string, string>();
  const app = new Hono();
  app.use("*", async (c, next) => {
    if (c.req.header("x-goog-api-key") !== key) {
      return json(400, { error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } });
    }
    await next();
  });
  app.post("/:version/models/:call", async (c) => {
    const [model, method] = c.req.param("call").split(":");
    const body = await c.req.json();
    if (method === "generateContent") {
      const fate = state.syncFate(lastUser(body as GenerateBody));
      if (fate.kind === "fail") return json(failure(fate).code, { error: failure(fate) });
      return json(200, response(body as GenerateBody, fate.kind === "ok" ? fate.text : ""));
    }
    if (method !== "batchGenerateContent")
      return json(404, { error: { code: 404, message: "not found", status: "NOT_FOUND" } });
    const { batch: spec } = body as {
      batch: {
        displayName?: string;
        inputConfig: { requests: { requests: Array<{ request: GenerateBody; metadata: { key: string } }> } };
      };
    };
    const inlined = spec.inputConfig.requests.requests;
    const made = await state.createRequest(() => {
      const batch = state.create(
        "batches/mock",
        inlined.map((r) => ({
          customId: r.metadata.key,
          prompt: lastUser(r.request),
          promptTokens: promptTokens(r.request),
        })),
        { displayName: spec.displayName ?? null },
      );
      bodies.set(
        batch.id,
        inlined.map((r) => r.request),
      );
      models.set(batch.id, model);
      return batch;
    });
    if (made === "error") {
      return json(500, { error: { code: 500, message: "Internal error encountered.", status: "INTERNAL" } });
    }
    return json(200, operation(made));
  });
  app.get("/:version/batches", (c) => {
    const size = Number(c.req.query("pageSize") ?? 50);
    const all = state.listed();
    const start = Number(c.req.query("pageToken") ?? 0);
    const page = all.slice(start, start + size);
    const next = start + size < all.length ? { nextPageToken: String(start + size) } : {};
    return json(200, { operations: page.map(operation), ...next });
  });
  app.get("/:version/batches/:id", (c) => {
    const batch = state.poll(`batches/${c.req.param("id")}`);
    if (!batch) return json(404, { error: { code: 404, message: "no such batch", status: "NOT_FOUND" } });
    if (batch.ended) state.resultReads++;
    return json(200, operation(batch));
  });

  function operation(batch: MockBatch) {
    const state = !batch.ended
      ? "BATCH_STATE_RUNNING"
      : batch.expired
        ? "BATCH_STATE_EXPIRED"
        : "BATCH_STATE_SUCCEEDED";
    const inlinedResponses = batch.requests.flatMap((request, index): Record<string, unknown>[] => {
      const fate = batch.fates.get(request.customId);
      if (!fate || fate.kind === "unrun") return [];
      const metadata = { key: request.customId };
      if (fate.kind === "fail") return [{ error: failure(fate), metadata }];
      return [{ response: response(bodies.get(batch.id)![index], fate.text), metadata }];
    });
    return {
      name: batch.id,
      metadata: {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
        name: batch.id,
        ...(batch.displayName ? { displayName: batch.displayName } : {}),
        model: `models/${models.get(batch.id)}`,
        state,
        createTime: new Date(batch.createdAt).toISOString(),
        ...(batch.ended
          ? { endTime: new Date(batch.createdAt).toISOString(), output: { inlinedResponses: { inlinedResponses } } }
          : {}),
      },
      ...(batch.ended ? { done: true } : {}),
    };
  }

  await server.start(app);
  return { server, state };
}
