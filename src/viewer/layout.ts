/**
 * The viewer's page shell: the report's building blocks (escaping `el`, `table`) and its style
 * sheet, served from /static/viewer.css rather than inline so the CSP can forbid inline style.
 */
import { CSS, type Content, el, render } from "../report/html.js";

export const STYLESHEET_PATH = "/static/viewer.css";

export const VIEWER_CSS = `${CSS}
main { max-width: 1400px; }
form.filters { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: end; margin: 8px 0 12px; font-size: 13px; }
form.filters label { display: flex; flex-direction: column; }
nav.pager { margin: 10px 0; display: flex; gap: 16px; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.columns > div { min-width: 0; }
del { background: #fbe3e1; } ins { background: #dff3e4; text-decoration: none; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; font-size: 13px; margin: 6px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
.hidden-verdict { background: #fff4d6; padding: 4px 8px; border-radius: 4px; }
`;

export function viewerPage(title: string, body: Content): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${render(title)}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body><main>
${render([el("p", { class: "muted" }, el("a", { href: "/" }, "all trials")), body])}
</main></body>
</html>
`;
}

/** A definition list of label -> value. */
export function facts(rows: [string, Content][]): Content {
  return el(
    "dl",
    { class: "facts" },
    rows.map(([label, value]) => [el("dt", {}, label), el("dd", {}, value)]),
  );
}
