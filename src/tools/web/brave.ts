import { isIP } from "node:net";
import * as z from "zod";
import { lazySchema } from "../../contracts/lazy-schema.js";
import { InputError } from "../../core/errors.js";
import { htmlToText } from "./html-text.js";
import type { SearchHit, WebBackend, WebPage } from "./types.js";
import { registerSecrets } from "../../core/secrets.js";

/**
 * The real web: search through the Brave Search API (GET `endpoint?q=...&count=N`, the key in
 * the `X-Subscription-Token` header, hits in `web.results[]`), fetch pages over HTTP(S). The key
 * is read from the environment variable the spec names and never appears in an observation.
 * Pages are fetched from the host (the sandbox has no network), so private and loopback
 * addresses are refused unless `allow_private_hosts` is set (tests against a local mock).
 */
export const BraveWebSettings = lazySchema(() =>
  z.strictObject({
    api_key_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name (A-Z, 0-9, _)")
      .default("BRAVE_SEARCH_API_KEY"),
    endpoint: z.url({ protocol: /^https?$/ }).default("https://api.search.brave.com/res/v1/web/search"),
    timeout_s: z.number().positive().default(20),
    max_page_bytes: z.number().int().positive().default(2_000_000),
    allow_private_hosts: z.boolean().default(false),
  }),
);
export type BraveWebSettings = z.infer<typeof BraveWebSettings>;

const BraveResponse = lazySchema(() =>
  z.object({
    web: z
      .object({
        results: z.array(z.object({ title: z.string(), url: z.string(), description: z.string().default("") })),
      })
      .optional(),
  }),
);

export function createBraveWeb(settings: BraveWebSettings, env: NodeJS.ProcessEnv = process.env): WebBackend {
  const key = env[settings.api_key_env];
  if (key === undefined || key === "") {
    throw new InputError(
      `web backend 'brave' reads its API key from the environment variable ${settings.api_key_env}, which is not set`,
    );
  }
  // Search results are stored as tool observations: the key must not be in them.
  registerSecrets([key]);
  const signal = () => AbortSignal.timeout(settings.timeout_s * 1000);
  return {
    name: "brave",
    search: async (query, maxResults) => {
      const url = new URL(settings.endpoint);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(maxResults));
      const response = await fetch(url, {
        headers: { Accept: "application/json", "X-Subscription-Token": key },
        signal: signal(),
      });
      if (!response.ok) throw new Error(`search failed: the search API answered HTTP ${response.status}`);
      const parsed = BraveResponse.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) throw new Error("search failed: the search API's answer has no web.results list");
      return Promise.all((parsed.data.web?.results ?? []).slice(0, maxResults).map(toHit));
    },
    fetch: async (address) => {
      const { response, body } = await get(address);
      return pageText(body, response.headers.get("content-type") ?? "");
    },
    page: async (address): Promise<WebPage> => {
      const { response, body } = await get(address);
      const contentType = textType(response.headers.get("content-type") ?? "");
      return {
        url: response.url || address,
        contentType,
        body: body.cut ? `${body.text}\n[page cut at the size limit]` : body.text,
      };
    },
  };

  async function get(address: string): Promise<{ response: Response; body: { text: string; cut: boolean } }> {
    const url = await checkedUrl(address, settings.allow_private_hosts);
    const response = await fetch(url, {
      redirect: "follow",
      signal: signal(),
      headers: { "User-Agent": "parallax-eval web_fetch" },
    });
    if (!response.ok) throw new Error(`fetching ${address} failed: HTTP ${response.status}`);
    return { response, body: await boundedBody(response, settings.max_page_bytes) };
  }
}

async function toHit(result: { title: string; url: string; description: string }): Promise<SearchHit> {
  return { title: await htmlToText(result.title), url: result.url, snippet: await htmlToText(result.description) };
}

/** An http(s) URL whose host is public (or any host when allowed). */
async function checkedUrl(address: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new Error(`'${address}' is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`only http and https URLs can be fetched, not ${url.protocol}`);
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // Imported here: node:dns is not otherwise loaded, and `plan` has no use for it.
  const { lookup } = await import("node:dns/promises");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  if (addresses.some(isPrivateAddress))
    throw new Error(`${url.hostname} is a private or local address; it is not fetched`);
  return url;
}

function isPrivateAddress(address: string): boolean {
  if (address.includes(":")) {
    const lower = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return isPrivateAddress(mapped[1]);
    return lower === "::1" || lower === "::" || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
  }
  const [a, b] = address.split(".").map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

async function boundedBody(response: Response, maxBytes: number): Promise<{ text: string; cut: boolean }> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { text: "", cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString("utf8"), cut: false };
    chunks.push(value);
    size += value.length;
    if (size >= maxBytes) {
      await reader.cancel();
      return { text: Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8"), cut: true };
    }
  }
}

/** The media type of a page that can be shown as text; throws for anything else (a PDF, an image). */
function textType(contentType: string): string {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type !== "" && !type.startsWith("text/") && !/json|xml/.test(type))
    throw new Error(`the page is ${type}, which web_fetch cannot show as text`);
  return type === "" ? "text/plain" : type;
}

async function pageText(body: { text: string; cut: boolean }, contentType: string): Promise<string> {
  const type = textType(contentType);
  const text = type === "text/html" || type === "application/xhtml+xml" ? await htmlToText(body.text) : body.text;
  return body.cut ? `${text}\n[page cut at the size limit]` : text;
}
