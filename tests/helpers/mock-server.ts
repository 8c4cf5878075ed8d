/**
 * Scriptable local HTTP mock (hono on 127.0.0.1, ephemeral port) shared by the provider
 * mocks: records each request, lets a test queue canned replies (an error with headers, a
 * hang, a malformed body) ahead of the provider-specific default answer.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Context, Hono } from "hono";

export type Scripted =
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "raw"; status: number; text: string; contentType?: string; headers?: Record<string, string> }
  | { kind: "hang" };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are asserted field by field in tests
  body: any;
  /** When the mock received it (ms since the epoch), for rate measurements. */
  receivedAt?: number;
}

type Server = ReturnType<typeof serve>;

export class MockServer {
  readonly requests: RecordedRequest[] = [];
  /** Every request is answered this much later (a slow provider); change it at any time. */
  delayMs = 0;
  private readonly script: Scripted[] = [];
  private readonly hangs: Array<() => void> = [];
  private server?: Server;
  url = "";

  /** Replies used, in order, before the default answer. */
  enqueue(...replies: Scripted[]): void {
    this.script.push(...replies);
  }

  reset(): void {
    this.requests.length = 0;
    this.script.length = 0;
  }

  /** Records the request (JSON body parsed) and returns it. */
  async record(c: Context): Promise<RecordedRequest> {
    const text = await c.req.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // non-JSON bodies are kept as text
    }
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const recorded = { method: c.req.method, path: new URL(c.req.url).pathname, headers, body, receivedAt: Date.now() };
    this.requests.push(recorded);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return recorded;
  }

  /** The next scripted reply as a Response, or undefined when the script is empty. */
  scripted(): Promise<Response> | undefined {
    const next = this.script.shift();
    if (!next) return undefined;
    if (next.kind === "hang") {
      return new Promise((resolve) => this.hangs.push(() => resolve(new Response(null, { status: 503 }))));
    }
    if (next.kind === "json") return Promise.resolve(json(next.status, next.body, next.headers));
    return Promise.resolve(
      new Response(next.text, {
        status: next.status,
        headers: { "content-type": next.contentType ?? "application/json", ...next.headers },
      }),
    );
  }

  async start(app: Hono): Promise<this> {
    await new Promise<void>((resolve) => {
      this.server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => {
        this.url = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
    return this;
  }

  async close(): Promise<void> {
    for (const release of this.hangs.splice(0)) release();
    const server = this.server as (Server & { closeAllConnections?: () => void }) | undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections?.();
    });
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** A crude GPT-like tokenizer: leading whitespace sticks to the next word. */
export function mockTokenize(text: string): string[] {
  return text.match(/\s*[^\s]+|\s+/g) ?? [];
}

/** A port nothing listens on (bound, then released), for connection-refused tests. */
export async function deadPort(): Promise<string> {
  const { createServer } = await import("node:net");
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(`http://127.0.0.1:${port}`));
    });
  });
}
