/**
 * The readable text of an HTML page: scripts, styles and markup dropped, whitespace folded.
 * linkedom is imported on first use, so loading a spec (plan) does not load it.
 */
export async function htmlToText(html: string): Promise<string> {
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html.includes("<html") ? html : `<html><body>${html}</body></html>`);
  for (const element of Array.from(document.querySelectorAll("script, style, noscript, template"))) element.remove();
  const title = document.querySelector("title")?.textContent?.trim();
  const body = (document.body?.textContent ?? document.documentElement?.textContent ?? "")
    .split("\n")
    .map((line: string) => line.replace(/\s+/g, " ").trim())
    .filter((line: string) => line.length > 0)
    .join("\n");
  return title && !body.startsWith(title) ? `${title}\n\n${body}` : body;
}

/** The title of an HTML page, if it has one. */
export function htmlTitle(html: string): string | undefined {
  return /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim() || undefined;
}
