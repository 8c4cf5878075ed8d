import * as z from "zod";
import { lazySchema } from "../contracts/lazy-schema.js";
import { capText } from "./output.js";
import type { Tool } from "./types.js";

const WebFetchArgs = lazySchema(() =>
  z.strictObject({ url: z.string().min(1).describe("The URL of the page to read.") }),
);

/** A page's text through the toolbox's backend, cut at the sandbox's output cap. */
export const webFetchTool: Tool<z.infer<typeof WebFetchArgs>> = {
  name: "web_fetch",
  description: "Fetch a web page by URL and return its text.",
  argumentsSchema: WebFetchArgs,
  run: async ({ url }, context) => {
    if (context.web === undefined)
      return { output: "Error: web access is not available here", error: "no web backend" };
    const { text, cut } = capText(await context.web.fetch(url), context.limits.outputBytes);
    return cut ? { output: text, limitHit: "output" } : { output: text };
  },
};
