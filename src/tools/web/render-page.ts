// fs.promises, not node:fs/promises: Node loads it (and readline with it) on first use, not with `plan`.
import { promises as fs } from "node:fs";
import * as z from "zod";
import { lazySchema } from "../../contracts/lazy-schema.js";
import type { ToolContext } from "../types.js";
import { hostPathIn } from "../work-dir.js";
import type { WebPage } from "./types.js";

/**
 * Renders a page for `web_browser` inside the trial's sandbox: the page's markup is untrusted,
 * so it is parsed by Python's html.parser in bubblewrap (no network, no host paths), like the
 * code the agent runs, never in the Parallax process. The page's text, with each link marked
 * `[n]`, lands in the work dir as `.web_browser/page.txt` (so the agent's bash/python can read
 * the page it is on) and, with the links' targets, as `.web_browser/page.json` for the host.
 */
export const RENDERED_DIR = ".web_browser";
const MAX_RENDERED_BYTES = 8_000_000;

/** The renderer (Python 3 standard library only), run as `python3 -c` with the page as JSON on stdin. */
export const RENDER_PAGE_PY = String.raw`
import html.parser, json, os, re, sys
page = json.load(sys.stdin)
kind, body = page["contentType"], page["body"]
links = []

def add_link(text, href):
    links.append({"text": " ".join(text.split())[:200], "href": href})
    return len(links)

SKIP = {"script", "style", "noscript", "template", "svg", "head"}
BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article",
         "header", "footer", "nav", "main", "ul", "ol", "table", "pre", "blockquote", "hr", "dt", "dd"}

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.skip, self.title, self.in_title, self.href, self.anchor = [], 0, "", False, None, []
    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
        elif tag in SKIP:
            self.skip += 1
        elif tag in BLOCK:
            self.out.append("\n- " if tag == "li" else "\n")
        if tag == "a":
            self.href, self.anchor = dict(attrs).get("href"), []
    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag in SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "a" and self.href:
            self.out.append(" [%d]" % add_link("".join(self.anchor), self.href))
            self.href = None
        elif tag in BLOCK:
            self.out.append("\n")
    def handle_data(self, data):
        if self.in_title:
            self.title += data
        elif not self.skip:
            self.out.append(data)
            if self.href:
                self.anchor.append(data)

def marked(pattern, text, label, href):
    return re.sub(pattern, lambda m: "%s [%d]" % (label(m), add_link(label(m), href(m))), text)

if "html" in kind:
    parser = Page()
    parser.feed(body)
    parser.close()
    text, title = "".join(parser.out), " ".join(parser.title.split())
elif "markdown" in kind:
    text = marked(r"\[([^\]]*)\]\(([^)\s]+)\)", body, lambda m: m.group(1), lambda m: m.group(2))
    title = ""
else:
    text = marked(r"https?://[^\s<>\"')\]]+", body, lambda m: m.group(0), lambda m: m.group(0))
    title = ""
lines = [" ".join(line.split()) for line in text.split("\n")]
lines = [line for line in lines if line]
if not title:
    title = next((line.lstrip("#").strip() for line in lines), "")
os.makedirs(".web_browser", exist_ok=True)
with open(".web_browser/page.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
with open(".web_browser/page.json", "w") as f:
    json.dump({"title": title, "lines": lines, "links": links}, f)
`;

const RenderedPageSchema = lazySchema(() =>
  z.object({
    title: z.string(),
    lines: z.array(z.string()),
    links: z.array(z.object({ text: z.string(), href: z.string() })),
  }),
);

export interface RenderedPage {
  url: string;
  title: string;
  lines: string[];
  /** Link n (1-based, as marked `[n]` in the lines) is links[n - 1]; targets resolved against the page URL. */
  links: { text: string; url: string }[];
}

/** Renders `page` in the sandbox; throws a plain Error (the observation) when it cannot. */
export async function renderInSandbox(page: WebPage, context: ToolContext): Promise<RenderedPage> {
  const result = await context.runInSandbox(["python3", "-c", RENDER_PAGE_PY], JSON.stringify(page));
  if (result.error !== undefined) throw new Error(`the page could not be rendered: ${result.error}`);
  const rendered = RenderedPageSchema.parse(JSON.parse(await readRendered(context.workDir)));
  return {
    url: page.url,
    title: rendered.title,
    lines: rendered.lines,
    links: rendered.links.map((link) => ({ text: link.text, url: resolvedUrl(link.href, page.url) })),
  };
}

/** The renderer's output, read through the work dir's path checks (the sandboxed code could have planted a link). */
async function readRendered(workDir: string): Promise<string> {
  const target = hostPathIn(workDir, `${RENDERED_DIR}/page.json`);
  if ("refused" in target) throw new Error(`the rendered page is not readable: ${target.refused}`);
  const stats = await fs.lstat(target.path);
  if (!stats.isFile() || stats.size > MAX_RENDERED_BYTES) throw new Error("the rendered page is missing or too large");
  return fs.readFile(target.path, "utf8");
}

/** A link's target against the page's URL (relative links included; offline:// URLs too). */
export function resolvedUrl(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}
