/**
 * The viewer's response headers. Model output is data, never code: every page is server-rendered
 * with escaped text, and the Content-Security-Policy forbids any script (none is ever served), so
 * a payload that slipped through escaping still could not run. Styles come from one same-origin
 * sheet (no inline style either), and nothing loads from elsewhere.
 */
import type { MiddlewareHandler } from "hono";
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
