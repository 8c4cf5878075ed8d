/**
 * Where the report's numbers link: a trial or a cell of the paged trials pages (the page that
 * holds it, or the index for a pooled cell), or, when the report is given the viewer's URL, a
 * trial's page in the viewer. One place, so every section and card links the same way.
 */
import type { ReportOptions } from "./sections/registry.js";

export function trialAnchor(trialId: string): string {
  return `t-${trialId}`;
}

/** The link to one trial. */
export function trialLink(options: ReportOptions, trialId: string): string {
  if (options.viewerUrl) return `${options.viewerUrl.replace(/\/?$/, "/")}trials/${encodeURIComponent(trialId)}`;
  return anchorLink(options, trialAnchor(trialId));
}

/** The link to the trials behind a cell (its cell id, `rates.ts` cellId). */
export function cellLink(options: Pick<ReportOptions, "trialsHref" | "pageOf">, cellId: string): string {
  return anchorLink(options, cellId);
}

function anchorLink(options: Pick<ReportOptions, "trialsHref" | "pageOf">, anchor: string): string {
  return `${options.pageOf?.get(anchor) ?? options.trialsHref}#${anchor}`;
}
