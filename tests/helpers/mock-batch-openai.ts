/**
 * The OpenAI Batch API wire format (and the synchronous chat endpoint answering alike): file
 * upload (multipart, purpose "batch"), POST /v1/batches (with its metadata), GET /v1/batches (the
 * cursor list, newest first: limit, after; data, first_id, last_id, has_more), GET
 * /v1/batches/{id}, GET /v1/files/{id}/content with the output and error JSONL files.
 */
import { Hono } from "hono";
import { BatchMockState, type MockBatch, type RequestFate, tokenCount } from "./mock-batch.js";
import { json, MockServer } from "./mock-server.js";
import { echoChoice } from "./mock-openai.js";

interface ChatBody {
  model: string;
  messages: Array<{ role: string; content: string | null }>;
}

function lastUser(body: ChatBody): string {
  return [...body.messages].reverse().find((m) => m.role === "user")?.content ?? "";
}

function promptTokens(body: ChatBody): number {
  return body.messages.reduce((n, m) => n + tokenCount(m.content ?? "") + 3, 0);
}

function completion(body: ChatBody, text: string) {
  const prompt = promptTokens(body);
  const out = tokenCount(text);
  return {
    id: "chatcmpl-mock",
    object: "chat.completion",
    created: 1_700_000_000,
    model: body.model,
    choices: [
      { index: 0, message: { role: "assistant", content: text, refusal: null }, logprobs: null, finish_reason: "stop" },
    ],
    usage: { prompt_tokens: prompt, completion_tokens: out, total_tokens: prompt + out },
    system_fingerprint: "fp_mock",
  };
}

function failureReply(fate: RequestFate & { kind: "fail" }) {
  return fate.failure === "server"
    ? {
        status: 500,
        body: { error: { message: "The server had an error.", type: "server_error", param: null, code: null } },
      }
    : {
        status: 400,
        body: {
          error: {
            message: "This model's maximum context length is 128000 tokens.",
            type: "invalid_request_error",
            param: null,
            code: "context_length_exceeded",
          },
        },
      };
}

const SERVER_ERROR = { error: { message: "The server had an error.", type: "server_error", param: null, code: null } };

/** The Batch API's metadata rules: at most 16 string pairs, keys up to 64 and values up to 512 characters. */
function validMetadata(metadata: unknown): boolean {
  if (metadata === undefined || metadata === null) return true;
  if (typeof metadata !== "object") return false;
  const pairs = Object.entries(metadata);
  return pairs.length <= 16 && pairs.every(([k, v]) => k.length <= 64 && typeof v === "string" && v.length <= 512);
}

export interface OpenAIBatchMock {
  server: MockServer;
  state: BatchMockState;
  /** The chat bodies of each batch, by batch id. */
  bodies: Map<string, ChatBody[]>;
  /** The names of the uploaded input files, in upload order. */
  fileNames: string[];
}

export async function startOpenAIBatchMock(key: string): Promise<OpenAIBatchMock> {
  const server = new MockServer();
  const state = new BatchMockState();
  const files = new Map<string, string>();
  const bodies = new Map<string, ChatBody[]>();
  const inputFiles = new Map<string, string>();
  const fileNames: string[] = [];
  const app = new Hono();
  let fileSeq = 1;
  app.use("*", async (c, next) => {
    if (c.req.header("authorization") !== `Bearer ${key}`) {
      return json(401, {
        error: { message: "Incorrect API key", type: "invalid_request_error", code: "invalid_api_key" },
      });
    }
    await next();
  });
  app.post("/v1/chat/completions", async (c) => {
    const body = (await c.req.json()) as ChatBody;
    const fate = state.syncFate(lastUser(body));
    if (fate.kind === "fail") {
      const reply = failureReply(fate);
      return json(reply.status, reply.body);
    }
    return json(200, completion(body, fate.kind === "ok" ? fate.text : ""));
  });
  // The legacy completions endpoint with echo logprobs (the log-prob scoring path, never batched).
  app.post("/v1/completions", async (c) => {
    const body = (await c.req.json()) as {
      model: string;
      prompt: string | string[];
      echo?: boolean;
      max_tokens?: number;
    };
    state.syncCalls++;
    const prompts = Array.isArray(body.prompt) ? body.prompt : [body.prompt];
    if (body.echo !== true || body.max_tokens !== 0) {
      return json(400, { error: { message: "echo and max_tokens 0 expected", type: "invalid_request_error" } });
    }
    const promptTokens = prompts.reduce((n, p) => n + tokenCount(p), 0);
    return json(200, {
      id: "cmpl-mock",
      object: "text_completion",
      created: 1_700_000_000,
      model: body.model,
      choices: prompts.map((prompt, index) => echoChoice(prompt, index)),
      usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens },
    });
  });
  app.post("/v1/files", async (c) => {
    const form = await c.req.parseBody();
    const file = form.file as File;
    if (form.purpose !== "batch" || !file)
      return json(400, { error: { message: "purpose batch and a file expected" } });
    const id = `file-in-${fileSeq++}`;
    files.set(id, await file.text());
    fileNames.push(file.name);
    return json(200, { id, object: "file", bytes: file.size, created_at: 1, filename: file.name, purpose: "batch" });
  });
  app.post("/v1/batches", async (c) => {
    const body = (await c.req.json()) as {
      input_file_id: string;
      endpoint: string;
      completion_window: string;
      metadata?: Record<string, string> | null;
    };
    const input = files.get(body.input_file_id);
    if (input === undefined || body.endpoint !== "/v1/chat/completions" || body.completion_window !== "24h") {
      return json(400, { error: { message: "bad batch request", type: "invalid_request_error" } });
    }
    if (!validMetadata(body.metadata)) {
      return json(400, { error: { message: "Invalid metadata", type: "invalid_request_error", param: "metadata" } });
    }
    const lines = input
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as { custom_id: string; method: string; url: string; body: ChatBody });
    if (new Set(lines.map((l) => l.custom_id)).size !== lines.length) {
      return json(400, { error: { message: "duplicate custom_id", type: "invalid_request_error" } });
    }
    const made = await state.createRequest(() => {
      const batch = state.create(
        "batch_",
        lines.map((l) => ({ customId: l.custom_id, prompt: lastUser(l.body), promptTokens: promptTokens(l.body) })),
        { metadata: body.metadata ?? null },
      );
      bodies.set(
        batch.id,
        lines.map((l) => l.body),
      );
      inputFiles.set(batch.id, body.input_file_id);
      return batch;
    });
    if (made === "error") return json(500, SERVER_ERROR);
    return json(200, batchObject(made));
  });
  app.get("/v1/batches", (c) => {
    const limit = Number(c.req.query("limit") ?? 20);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return json(400, { error: { message: "limit must be between 1 and 100", type: "invalid_request_error" } });
    }
    const all = state.listed();
    const after = c.req.query("after");
    const start = after === undefined ? 0 : all.findIndex((b) => b.id === after) + 1;
    const page = all.slice(start, start + limit);
    return json(200, {
      object: "list",
      data: page.map((b) => batchObject(b)),
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
      has_more: start + limit < all.length,
    });
  });
  app.get("/v1/batches/:id", (c) => {
    const batch = state.poll(c.req.param("id"));
    if (!batch) return json(404, { error: { message: "no such batch", type: "invalid_request_error" } });
    return json(200, batchObject(batch));
  });
  app.get("/v1/files/:id/content", (c) => {
    const text = files.get(c.req.param("id"));
    if (text === undefined) return json(404, { error: { message: "no such file" } });
    if (c.req.param("id").startsWith("file-out-")) state.resultReads++;
    return new Response(text, { status: 200, headers: { "content-type": "application/octet-stream" } });
  });

  function writeResults(batch: MockBatch): void {
    if (files.has(`file-out-${batch.id}`)) return;
    const out: string[] = [];
    const errors: string[] = [];
    batch.requests.forEach((request, index) => {
      const fate = batch.fates.get(request.customId)!;
      const line = { id: `batch_req_${index}`, custom_id: request.customId };
      if (fate.kind === "unrun") {
        errors.push(
          JSON.stringify({
            ...line,
            response: null,
            error: { code: "batch_expired", message: "This request could not be executed before the window expired." },
          }),
        );
      } else if (fate.kind === "fail") {
        const reply = failureReply(fate);
        out.push(
          JSON.stringify({
            ...line,
            response: { status_code: reply.status, request_id: "r", body: reply.body },
            error: null,
          }),
        );
      } else {
        const body = bodies.get(batch.id)![index];
        out.push(
          JSON.stringify({
            ...line,
            response: { status_code: 200, request_id: "r", body: completion(body, fate.text) },
            error: null,
          }),
        );
      }
    });
    files.set(`file-out-${batch.id}`, `${out.join("\n")}\n`);
    if (errors.length > 0) files.set(`file-err-${batch.id}`, `${errors.join("\n")}\n`);
  }

  function batchObject(batch: MockBatch) {
    if (batch.ended) writeResults(batch);
    const status = !batch.ended ? "in_progress" : batch.expired ? "expired" : "completed";
    const fates = [...batch.fates.values()];
    return {
      id: batch.id,
      object: "batch",
      endpoint: "/v1/chat/completions",
      errors: null,
      input_file_id: inputFiles.get(batch.id) ?? null,
      completion_window: "24h",
      status,
      output_file_id: batch.ended ? `file-out-${batch.id}` : null,
      error_file_id: batch.ended && files.has(`file-err-${batch.id}`) ? `file-err-${batch.id}` : null,
      created_at: Math.floor(batch.createdAt / 1000),
      metadata: batch.metadata,
      request_counts: {
        total: batch.requests.length,
        completed: fates.filter((f) => f.kind === "ok").length,
        failed: fates.filter((f) => f.kind !== "ok").length,
      },
    };
  }

  await server.start(app);
  return { server, state, bodies, fileNames };
}
