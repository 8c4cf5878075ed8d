/**
 * The viewer's response headers. Model output is data, never code: every page is server-rendered
 * with escaped text, and the Content-Security-Policy forbids any script (none is ever served), so
 * a payload that slipped through escaping still could not run. Styles come from one same-origin
 * sheet (no inline style either), and nothing loads from elsewhere.
 */
import type { MiddlewareHandler } from "hono";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { hostname, networkInterfaces } from "node:os";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Strict headers on every response, and only GET/HEAD: the viewer never changes the store. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return c.text("the viewer is read-only", 405);
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
  };
}

/** The loopback names, always allowed in the Host header. */
const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];
/** Bind addresses that listen on every interface. */
const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The host names a request may carry for a viewer bound to `bindHost`: the loopback names, the
 * bound name itself (bracketed if it is an IPv6 address), and for a wildcard bind the machine's
 * host name and the addresses of its interfaces. Lower case.
 */
export function allowedHostNames(
  bindHost: string,
  machine: { hostname: string; addresses: readonly string[] } = machineNames(),
): string[] {
  const bracketed = (name: string) => (name.includes(":") && !name.startsWith("[") ? `[${name}]` : name);
  const names = [...LOOPBACK_NAMES, bracketed(bindHost)];
  if (WILDCARD_BINDS.has(bindHost)) names.push(machine.hostname, ...machine.addresses.map(bracketed));
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

function machineNames(): { hostname: string; addresses: string[] } {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info === undefined ? [] : [info.address]));
  return { hostname: hostname(), addresses };
}

/**
 * Refuses (421) requests whose Host header is not one of the allowed names with the port the
 * viewer listens on, whatever address it is bound to, so a web page in the user's browser cannot
 * reach it through a DNS name rebound to the viewer's address.
 */
export function allowedHostsOnly(names: readonly string[], port: () => number): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header("host") ?? "").toLowerCase();
    const allowed = names.flatMap((name) => (port() === 80 ? [`${name}:80`, name] : [`${name}:${port()}`]));
    if (!allowed.includes(host)) return c.text(`refused: unexpected Host header ${JSON.stringify(host)}`, 421);
    await next();
  };
}

/**
 * Refuses (400) a request line in any form but origin form (`GET /path`): an absolute-form target
 * (`GET http://evil.example/`) names another origin than the Host header checked above, and the
 * viewer is no proxy. Reads the raw target from the Node request (absent when the app is called
 * in-process, as page tests do).
 */
export function originFormOnly(): MiddlewareHandler {
  return async (c, next) => {
    const target = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url;
    if (target !== undefined && !target.startsWith("/"))
      return c.text("refused: the request target must be a path (origin form), not an absolute URL", 400);
    await next();
  };
}

/**
 * The answer to a request Node's parser refused before the app saw it, written on the socket:
 * 414 when the request line alone overflows the header limit (a long query string), 431 when the
 * header fields do, 400 otherwise. The socket is half-closed and the rest of the request read and
 * dropped, so the client gets the answer instead of a TCP reset from unread data.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const overflow = error.code === "HPE_HEADER_OVERFLOW";
  const requestLineEnds = error.rawPacket?.includes("\r\n") ?? false;
  const [status, reason, body] = !overflow
    ? [400, "Bad Request", "bad request"]
    : requestLineEnds
      ? [431, "Request Header Fields Too Large", "the request's header fields are too large"]
      : [414, "URI Too Long", "the request URL is too long"];
  const text = `${body}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
  socket.on("data", () => {});
  socket.resume();
  // A client that never stops sending is cut off.
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}

/** How long the rest of a refused request is read before the connection is closed. */
const DRAIN_MS = 5_000;
