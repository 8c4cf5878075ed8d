/**
 * The Anthropic Message Batches wire format (and POST /v1/messages answering alike):
 * POST /v1/messages/batches, GET /v1/messages/batches (the list, newest first: limit, after_id,
 * before_id; data, has_more, first_id, last_id), GET /v1/messages/batches/{id} (results_url once
 * ended), and the results JSONL (succeeded / errored / expired per request), available only once
 * the batch has ended. A message batch carries no metadata and no listing of its requests.
 */
import { Hono } from "hono";
import { BatchMockState, type MockBatch, type RequestFate, tokenCount } from "./mock-batch.js";
import { json, MockServer } from "./mock-server.js";

type Block = { type: string; text?: string };
interface MessageBody {
  model: string;
  system?: string;
  max_tokens: number;
  messages: Array<{ role: string; content: string | Block[] }>;
}

function textOf(content: string | Block[]): string {
  return typeof content === "string" ? content : content.map((b) => b.text ?? "").join("");
}

function lastUser(body: MessageBody): string {
  const m = [...body.messages].reverse().find((x) => x.role === "user");
  return m ? textOf(m.content) : "";
}

function promptTokens(body: MessageBody): number {
  return tokenCount(body.system ?? "") + body.messages.reduce((n, m) => n + tokenCount(textOf(m.content)) + 3, 0);
}

function message(body: MessageBody, text: string) {
  return {
    id: "msg_mock",
    type: "message",
    role: "assistant",
    model: body.model,
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: promptTokens(body), output_tokens: tokenCount(text) },
  };
}

function failureBody(fate: RequestFate & { kind: "fail" }) {
  return fate.failure === "server"
    ? { status: 500, body: { type: "error", error: { type: "api_error", message: "Internal server error" } } }
    : {
        status: 400,
        body: {
          type: "error",
          error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" },
        },
      };
}

export interface AnthropicBatchMock {
  server: MockServer;
  state: BatchMockState;
}

export async function startAnthropicBatchMock(key: string): Promise<AnthropicBatchMock> {
  const server = new MockServer();
  const state = new BatchMockState();
  const bodies = new Map<string, MessageBody[]>();
  const app = new Hono();
  app.use("*", async (c, next) => {
    if (c.req.header("x-api-key") !== key) {
      return json(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
    }
    await next();
  });
  app.post("/v1/messages", async (c) => {
    const body = (await c.req.json()) as MessageBody;
    const fate = state.syncFate(lastUser(body));
    if (fate.kind === "fail") {
      const reply = failureBody(fate);
      return json(reply.status, reply.body);
    }
    return json(200, message(body, fate.kind === "ok" ? fate.text : ""));
  });
  app.post("/v1/messages/batches", async (c) => {
    const { requests } = (await c.req.json()) as { requests: Array<{ custom_id: string; params: MessageBody }> };
    if (!Array.isArray(requests) || requests.some((r) => !/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id))) {
      return json(400, { type: "error", error: { type: "invalid_request_error", message: "bad custom_id" } });
    }
    if (new Set(requests.map((r) => r.custom_id)).size !== requests.length) {
      return json(400, { type: "error", error: { type: "invalid_request_error", message: "duplicate custom_id" } });
    }
    const made = await state.createRequest(() => {
      const batch = state.create(
        "msgbatch_",
        requests.map((r) => ({
          customId: r.custom_id,
          prompt: lastUser(r.params),
          promptTokens: promptTokens(r.params),
        })),
      );
      bodies.set(
        batch.id,
        requests.map((r) => r.params),
      );
      return batch;
    });
    if (made === "error") {
      return json(500, { type: "error", error: { type: "api_error", message: "Internal server error" } });
    }
    return json(200, batchObject(made, server.url));
  });
  app.get("/v1/messages/batches", (c) => {
    const limit = Number(c.req.query("limit") ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      return json(400, { type: "error", error: { type: "invalid_request_error", message: "limit: 1 to 1000" } });
    }
    const all = state.listed();
    const afterId = c.req.query("after_id");
    const beforeId = c.req.query("before_id");
    let page: MockBatch[];
    if (beforeId !== undefined) {
      const end = Math.max(
        0,
        all.findIndex((b) => b.id === beforeId),
      );
      page = all.slice(Math.max(0, end - limit), end);
    } else {
      const start = afterId === undefined ? 0 : all.findIndex((b) => b.id === afterId) + 1;
      page = all.slice(start, start + limit);
    }
    const last = page.at(-1);
    return json(200, {
      data: page.map((b) => batchObject(b, server.url)),
      has_more: beforeId !== undefined ? all[0] !== page[0] : last !== undefined && all.at(-1) !== last,
      first_id: page[0]?.id ?? null,
      last_id: last?.id ?? null,
    });
  });
  app.get("/v1/messages/batches/:id/results", (c) => {
    const batch = state.batches.get(c.req.param("id"));
    if (!batch?.ended) return json(404, { type: "error", error: { type: "not_found_error", message: "no results" } });
    state.resultReads++;
    const lines = batch.requests.map((request, index) => {
      const fate = batch.fates.get(request.customId)!;
      if (fate.kind === "unrun") return { custom_id: request.customId, result: { type: "expired" } };
      if (fate.kind === "fail") {
        return { custom_id: request.customId, result: { type: "errored", error: failureBody(fate).body } };
      }
      const body = bodies.get(batch.id)![index];
      return { custom_id: request.customId, result: { type: "succeeded", message: message(body, fate.text) } };
    });
    return new Response(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`, {
      status: 200,
      headers: { "content-type": "application/binary" },
    });
  });
  app.get("/v1/messages/batches/:id", (c) => {
    const batch = state.poll(c.req.param("id"));
    if (!batch) return json(404, { type: "error", error: { type: "not_found_error", message: "no such batch" } });
    return json(200, batchObject(batch, server.url));
  });

  function batchObject(batch: MockBatch, url: string) {
    const fates = [...batch.fates.values()];
    const count = (kind: RequestFate["kind"]) => fates.filter((f) => f.kind === kind).length;
    return {
      id: batch.id,
      type: "message_batch",
      processing_status: batch.ended ? "ended" : "in_progress",
      request_counts: {
        processing: batch.ended ? 0 : batch.requests.length,
        succeeded: count("ok"),
        errored: count("fail"),
        canceled: 0,
        expired: count("unrun"),
      },
      ended_at: batch.ended ? new Date(batch.createdAt).toISOString() : null,
      created_at: new Date(batch.createdAt).toISOString(),
      expires_at: new Date(batch.createdAt + 86_400_000).toISOString(),
      archived_at: null,
      cancel_initiated_at: null,
      results_url: batch.ended ? `${url}/v1/messages/batches/${batch.id}/results` : null,
    };
  }

  await server.start(app);
  return { server, state };
}
