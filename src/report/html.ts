/**
 * HTML building blocks for the offline report: escaping (every model output, prompt and label
 * passes through `esc`), the page shell with inline CSS, and small table helpers. No script is
 * ever emitted; the pages work from a file:// URL with no network.
 */

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

const SPECIAL = /[&<>"']/;

export function esc(value: unknown): string {
  const text = String(value ?? "");
  // Most labels and messages have nothing to escape: tested first, they are returned as they are.
  return SPECIAL.test(text) ? text.replace(/[&<>"']/g, (c) => ENTITIES[c]) : text;
}

/** Pre-escaped HTML, so helpers can tell markup from text. */
export interface Html {
  readonly html: string;
}

export function raw(html: string): Html {
  return { html };
}

export type Content = string | number | null | undefined | Html | Content[];

/** Text is escaped; Html values pass through. */
export function render(content: Content): string {
  if (Array.isArray(content)) return content.map(render).join("");
  if (content !== null && typeof content === "object") return content.html;
  return esc(content);
}

export function el(
  tag: string,
  attrs: Record<string, string | number | boolean | null | undefined>,
  ...children: Content[]
): Html {
  const attributes = Object.entries(attrs)
    .filter(([, v]) => v !== null && v !== undefined && v !== false)
    .map(([k, v]) => (v === true ? ` ${k}` : ` ${k}="${esc(v)}"`))
    .join("");
  return raw(`<${tag}${attributes}>${render(children)}</${tag}>`);
}

export function table(header: Content[], rows: Content[][], attrs: Record<string, string> = {}): Html {
  return el(
    "table",
    attrs,
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        header.map((h) => el("th", {}, h)),
      ),
    ),
    el(
      "tbody",
      {},
      rows.map((r) =>
        el(
          "tr",
          {},
          r.map((c) => el("td", {}, c)),
        ),
      ),
    ),
  );
}

export const CSS = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5b6475; --line: #d8dde6; --accent: #1f5fbf; --warn: #b3261e; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0; background: #f6f7f9; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 64px; background: #fff; min-height: 100vh; }
h1 { font-size: 26px; margin: 8px 0 4px; } h2 { font-size: 20px; margin: 36px 0 8px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 22px 0 6px; } h4 { font-size: 14px; margin: 16px 0 4px; color: var(--muted); }
p.lead, .muted { color: var(--muted); }
a { color: var(--accent); }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; font-variant-numeric: tabular-nums; }
/* A table wider than the page scrolls on its own, so the page keeps its width. */
table { display: block; max-width: 100%; overflow-x: auto; }
figure { max-width: 100%; overflow-x: auto; }
details.audit-rows, details.across { margin: 4px 0 12px; } details.audit-rows > summary { cursor: pointer; color: var(--accent); }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f6; }
td.num, th.num { text-align: right; }
.simulated { background: var(--warn); color: #fff; font-weight: 700; padding: 12px 16px; border-radius: 6px; font-size: 16px; letter-spacing: 0.02em; margin: 8px 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: #e7ecf5; }
.badge.ok { background: #dff3e4; } .badge.bad { background: #fbe3e1; }
figure { margin: 8px 0 20px; } figcaption { color: var(--muted); font-size: 13px; }
nav.toc { font-size: 13px; columns: 2; margin: 8px 0 16px; }
details.contents { font-size: 13px; margin: 4px 0; } details.contents > summary { cursor: pointer; color: var(--accent); }
p.integrity-verdict { margin: 6px 0; padding: 6px 10px; border-radius: 4px; background: #dff3e4; }
p.integrity-verdict.bad { background: #fbe3e1; }
table.integrity details > summary { cursor: pointer; color: var(--muted); }
table.integrity details p { margin: 4px 0; max-width: 60em; }
pre { white-space: pre-wrap; word-break: break-word; background: #f3f5f8; border: 1px solid var(--line); padding: 8px; border-radius: 4px; font-size: 12.5px; margin: 4px 0; }
pre.diff ins { background: #d7f5dd; text-decoration: none; } pre.diff del { background: #f9d6d6; }
article.trial { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
article.trial:target, section:target { outline: 3px solid #f0b429; }
.msg-role { font-weight: 600; font-size: 12px; color: var(--muted); text-transform: uppercase; }
.trial-links a { display: inline-block; min-width: 1.6em; text-align: center; margin: 1px; text-decoration: none; border-radius: 3px; }
.pass { background: #dff3e4; } .fail { background: #fbe3e1; }
svg { overflow: visible; }
`;

/**
 * The mark of a page `parallax report` wrote (in its <head>): the report only overwrites a
 * file that carries it, unless `--force` (src/report/output.ts).
 */
export const GENERATOR_MARK = '<meta name="generator" content="parallax report">';

export function page(title: string, body: Content): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${GENERATOR_MARK}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body><main>
${render(body)}
</main></body>
</html>
`;
}
