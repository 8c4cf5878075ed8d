import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import { capText } from "./output.js";
import type { Tool, ToolContext } from "./types.js";
import { type RenderedPage, renderInSandbox } from "./web/render-page.js";
import type { WebBackend, WebPage } from "./web/types.js";

/**
 * S1's stateful `web_browser` (GAIA §3.3: the `inspect_evals` baseline browses with Inspect's
 * web_browser instead of web_search, and has no text editor). One tool with an `action`, after
 * Inspect's web_browser_go / _click / _scroll / _back / _forward, plus `search` (a results page
 * from the toolbox's web backend, standing in for the search engine a browser would open: the
 * offline web has none). The browser's state (history, position) lives for the trial's toolbox;
 * pages come from the same pluggable backends as web_search/web_fetch (on the host: the sandbox
 * has no network) and are rendered in the trial's sandbox (web/render-page.ts), one viewport of
 * text at a time with its links numbered for `click`.
 */
export const VIEW_LINES = 40;

const ACTIONS = ["go", "search", "click", "scroll", "back", "forward"] as const;

/** The field each action needs. */
const NEEDS: Partial<Record<(typeof ACTIONS)[number], "url" | "query" | "link">> = {
  go: "url",
  search: "query",
  click: "link",
};

const WebBrowserArgs = lazySchema(() =>
  z
    .strictObject({
      action: z
        .enum(ACTIONS)
        .describe(
          "go: open url; search: search the web for query; click: follow link number `link` of the page; scroll: move `direction` by one view; back/forward: through the history.",
        ),
      url: z.string().min(1).optional().describe("For go: the URL to open."),
      query: z.string().min(1).optional().describe("For search: what to search for."),
      link: z.number().int().min(1).optional().describe("For click: the number shown as [n] after the link."),
      direction: z.enum(["down", "up"]).optional().describe("For scroll (default down)."),
    })
    .superRefine((args, context) => {
      const field = NEEDS[args.action];
      if (field !== undefined && args[field] === undefined)
        context.addIssue({ code: "custom", path: [field], message: `action '${args.action}' needs ${field}` });
    }),
);
type WebBrowserArgs = z.infer<typeof WebBrowserArgs>;

interface Visit {
  page: WebPage;
  rendered: RenderedPage;
  /** Index of the first line in view. */
  top: number;
}

interface BrowserState {
  history: Visit[];
  at: number;
}

/** One browser per trial: the toolbox's context lives as long as the trial. */
const browsers = new WeakMap<ToolContext, BrowserState>();

export const webBrowserTool: Tool<WebBrowserArgs> = {
  name: "web_browser",
  description:
    "A web browser that keeps its page between calls. Open a URL (go) or search the web (search), then read the page one view at a time (scroll), follow its numbered links (click) and move through the history (back, forward). The current page's text is also in .web_browser/page.txt in the working directory.",
  argumentsSchema: WebBrowserArgs,
  run: async (args, context) => {
    const web = context.web;
    if (web === undefined) return { output: "Error: web browsing is not available here", error: "no web backend" };
    let state = browsers.get(context);
    if (state === undefined) {
      state = { history: [], at: -1 };
      browsers.set(context, state);
    }
    const current = state.history[state.at];
    switch (args.action) {
      case "go":
        return open(state, await load(web, args.url ?? ""), context);
      case "search":
        return open(state, await resultsPage(web, args.query ?? ""), context);
      case "click": {
        if (current === undefined) return refused("no page is open; use go or search first");
        const link = current.rendered.links[(args.link ?? 0) - 1];
        if (link === undefined)
          return refused(
            `there is no link [${args.link}] on this page (it has ${current.rendered.links.length} links)`,
          );
        return open(state, await load(web, link.url), context);
      }
      case "scroll": {
        if (current === undefined) return refused("no page is open; use go or search first");
        const step = args.direction === "up" ? -VIEW_LINES : VIEW_LINES;
        const last = Math.max(0, current.rendered.lines.length - 1);
        current.top = Math.min(Math.max(0, current.top + step), Math.floor(last / VIEW_LINES) * VIEW_LINES);
        return view(current, context);
      }
      case "back":
      case "forward": {
        const next = state.at + (args.action === "back" ? -1 : 1);
        const visit = state.history[next];
        if (visit === undefined) return refused(`there is no page to go ${args.action} to`);
        state.at = next;
        // Rendered again so that .web_browser/page.txt is the page in view.
        visit.rendered = await renderInSandbox(visit.page, context);
        return view(visit, context);
      }
    }
  },
};

async function load(web: WebBackend, url: string): Promise<WebPage> {
  if (web.page) return web.page(url);
  return { url, contentType: "text/plain", body: await web.fetch(url) };
}

/** A search as a page of results (an HTML list of links), rendered like any other page. */
async function resultsPage(web: WebBackend, query: string): Promise<WebPage> {
  const hits = await web.search(query, 10);
  const items = hits.map(
    (hit) => `<li><a href="${escapeHtml(hit.url)}">${escapeHtml(hit.title)}</a><br>${escapeHtml(hit.snippet)}</li>`,
  );
  const body = `<html><head><title>Search: ${escapeHtml(query)}</title></head><body><h1>Results for ${escapeHtml(query)}</h1>${
    items.length === 0 ? "<p>No results.</p>" : `<ol>${items.join("")}</ol>`
  }</body></html>`;
  return { url: `about:search?q=${encodeURIComponent(query)}`, contentType: "text/html", body };
}

async function open(state: BrowserState, page: WebPage, context: ToolContext) {
  const visit: Visit = { page, rendered: await renderInSandbox(page, context), top: 0 };
  state.history = [...state.history.slice(0, state.at + 1), visit];
  state.at = state.history.length - 1;
  return view(visit, context);
}

/** The viewport: title, URL, where in the page, the lines in view (links marked [n]). */
function view(visit: Visit, context: ToolContext) {
  const { rendered, top } = visit;
  const lines = rendered.lines.slice(top, top + VIEW_LINES);
  const end = top + lines.length;
  const position =
    rendered.lines.length === 0
      ? "(the page is empty)"
      : `(lines ${top + 1}-${end} of ${rendered.lines.length}${end < rendered.lines.length ? "; scroll down for more" : ""})`;
  const text = [rendered.title, rendered.url, position, "", ...lines].join("\n");
  const { text: shown, cut } = capText(text, context.limits.outputBytes);
  return cut ? { output: shown, limitHit: "output" as const } : { output: shown };
}

function refused(message: string) {
  return { output: `Error: ${message}`, error: message };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
