/**
 * Starts the viewer: opens the study (and the one it is paired with) read-only, listens on 127.0.0.1 (a free port unless one is
 * given) or on the host the user chose, serves its first page once to itself (warmUp), and
 * returns the URL and a close function.
 */
import { type ServerType, serve } from "@hono/node-server";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ParallaxError } from "../core/errors.js";
import { createViewerApp } from "./app.js";
import { allowedHostNames, answerClientError } from "./security.js";
import { openViewerStudy, type ViewerStudy } from "./study.js";

export const LOOPBACK = "127.0.0.1";

export interface ViewerOptions {
  /** 0 (default): a free port. */
  port?: number;
  /** Listen address; default 127.0.0.1. Anything else exposes the study to the network. */
  host?: string;
  runId?: string;
  /** A second study (directory or store URL), opened read-only, paired with the first on `/pair` (its latest run). */
  with?: string;
}

export interface RunningViewer {
  url: string;
  study: ViewerStudy;
  /** The second study, when `with` was given. */
  pairWith?: ViewerStudy;
  close(): Promise<void>;
}

export async function startViewer(target: string, options: ViewerOptions = {}): Promise<RunningViewer> {
  const study = await openViewerStudy(target, options.runId);
  let pairWith: ViewerStudy | undefined;
  try {
    pairWith = options.with === undefined ? undefined : await openViewerStudy(options.with);
  } catch (error) {
    await study.store.close();
    // Two studies are open here: say which one the message is about.
    if (error instanceof ParallaxError) throw new ParallaxError(`--with: ${error.message}`, error.exitCode);
    throw error;
  }
  const closeStores = async () => {
    await study.store.close();
    await pairWith?.store.close();
  };
  const host = options.host ?? LOOPBACK;
  let port = options.port ?? 0;
  const app = createViewerApp(study, { hostCheck: { names: allowedHostNames(host), port: () => port }, pairWith });
  let server: ServerType;
  try {
    server = await new Promise<ServerType>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(s));
      s.once("error", reject);
      // An oversized or malformed request gets a status line, not a reset (security.ts).
      s.on("clientError", answerClientError);
    });
  } catch (error) {
    await closeStores();
    throw error;
  }
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  await warmUp(host, port, shownHost);
  return {
    url: `http://${shownHost}:${port}/`,
    study,
    pairWith,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Browsers keep idle connections open; without this, close would wait for them.
      if ("closeAllConnections" in server) server.closeAllConnections();
      await closed;
      await closeStores();
    },
  };
}

/**
 * Requests the first page once, over a socket like the browser's, before the URL is handed out:
 * the first request of a process pays for compiling hono's router (built on the first match), for
 * V8 compiling the HTTP adapter, the middleware, the query and the page rendering, and for reading
 * the first page's rows into SQLite's cache. Paid here, at start, the user's first page costs
 * what later ones do. A failure is left for the real request to report.
 */
async function warmUp(host: string, port: number, shownHost: string): Promise<void> {
  // An unspecified listen address (0.0.0.0, ::) is reached through the loopback address.
  const connectTo = host === "0.0.0.0" ? LOOPBACK : host === "::" ? "::1" : host;
  await new Promise<void>((resolve) => {
    const request = http.get({ host: connectTo, port, path: "/", headers: { host: `${shownHost}:${port}` } }, (res) => {
      res.resume();
      res.on("end", resolve);
      res.on("error", () => resolve());
    });
    request.on("error", () => resolve());
  });
}
