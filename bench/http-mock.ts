/**
 * A minimal OpenAI-compatible chat-completions server for the HTTP benchmarks (bench/http.ts):
 * node:http only, each answer sent after a fixed latency, so that the client's own costs are what
 * the benchmark sees. It runs in its own process (`tsx bench/http-mock.ts LATENCY_MS`) and prints
 * its base URL on the first line of stdout. `GET /span` returns the span since the last
 * `POST /span/reset`: requests answered, first request received and last answer sent (ms since
 * the epoch), the request span that the whole-process time is compared with.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const latencyMs = Number(process.argv[2] ?? 200);
let span = { requests: 0, first: 0, last: 0 };

function completion(model: string): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "Answer: B", refusal: null },
        finish_reason: "stop",
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 60, completion_tokens: 3, total_tokens: 63 },
  });
}

function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
  if (request.method === "GET" && request.url === "/span") {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(span));
    return;
  }
  if (request.method === "POST" && request.url === "/span/reset") {
    span = { requests: 0, first: 0, last: 0 };
    response.writeHead(204).end();
    return;
  }
  if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
    response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
    return;
  }
  if (span.requests === 0) span.first = Date.now();
  let model = "gpt-4o-mini";
  try {
    model = JSON.parse(body).model ?? model;
  } catch {
    // an unparsable body still gets an answer: the benchmark measures the client
  }
  setTimeout(() => {
    response.writeHead(200, { "content-type": "application/json" }).end(completion(model));
    span.requests++;
    span.last = Date.now();
  }, latencyMs);
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => answer(request, response, Buffer.concat(chunks).toString("utf8")));
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
