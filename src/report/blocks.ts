/** Small report building blocks shared by the sections. */
import type { Content, Html } from "./html.js";
import { el } from "./html.js";

/** " [lo, hi]" with each end formatted (a leading space), or "" without an interval. */
export function ci(interval: [number, number] | null | undefined, f: (v: number) => string): string {
  return interval ? ` [${f(interval[0])}, ${f(interval[1])}]` : "";
}

export function figure(chart: Html | null, caption: string): Content {
  return chart
    ? el("figure", {}, chart, el("figcaption", {}, caption))
    : el("p", { class: "muted" }, `(${caption}: not available for this study)`);
}
