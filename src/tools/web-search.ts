import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import type { Tool } from "./types.js";

const WebSearchArgs = lazySchema(() =>
  z.strictObject({
    query: z.string().min(1).describe("What to search for."),
    max_results: z.number().int().min(1).max(20).optional().describe("How many results (default 5)."),
  }),
);

/** A web search through the toolbox's backend (runs on the host: the sandbox has no network). */
export const webSearchTool: Tool<z.infer<typeof WebSearchArgs>> = {
  name: "web_search",
  description:
    "Search the web. Returns the titles, URLs and snippets of the best matching pages; read a page with web_fetch.",
  argumentsSchema: WebSearchArgs,
  run: async ({ query, max_results }, context) => {
    if (context.web === undefined)
      return { output: "Error: web search is not available here", error: "no web backend" };
    const hits = await context.web.search(query, max_results ?? 5);
    if (hits.length === 0) return { output: `No results for '${query}'.` };
    return { output: hits.map((hit, i) => `${i + 1}. ${hit.title}\n   ${hit.url}\n   ${hit.snippet}`).join("\n") };
  },
};
