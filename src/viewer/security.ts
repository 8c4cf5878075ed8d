/**
 * The viewer's response headers. Model output is data, never code: every page is server-rendered
 * with escaped text, and the Content-Security-Policy forbids any script (none is ever served), so
 * a payload that slipped through escaping still could not run. Styles come from one same-origin
 * sheet (no inline style either), and nothing loads from elsewhere.
 */
import type { MiddlewareHandler } from "hono";

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

/**
 * Refuses requests whose Host header is not the loopback address the viewer listens on, so a
 * web page in the user's browser cannot reach it through a DNS name rebound to 127.0.0.1.
 * Not applied when the user exposes the viewer with --host.
 */
export function loopbackOnly(port: () => number): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host") ?? "";
    const allowed = ["127.0.0.1", "localhost", "[::1]"].map((name) => `${name}:${port()}`);
    if (!allowed.includes(host)) return c.text(`refused: unexpected Host header ${JSON.stringify(host)}`, 421);
    await next();
  };
}
