/**
 * Where the report's numbers link: a trial or a cell of the paged trials pages (the page that
 * holds it, or the index for a pooled cell), or, when the report is given the viewer's URL, a
 * trial's page in the viewer (and a cell's trials to the viewer's list filtered to it). One place, so every section and card links the same way.
 */
import type { CellTrials, ReportOptions } from "./sections/registry.js";

export function trialAnchor(trialId: string): string {
  return `t-${trialId}`;
}

/** The link to one trial. */
export function trialLink(options: ReportOptions, trialId: string): string {
  if (options.viewerUrl) return `${options.viewerUrl.replace(/\/?$/, "/")}trials/${encodeURIComponent(trialId)}`;
  return anchorLink(options, trialAnchor(trialId));
}

/** The link to the trials behind a cell (its cell id, `analysis/every-study/rates.ts` cellId). */
export function cellLink(options: Pick<ReportOptions, "trialsHref" | "pageOf">, cellId: string): string {
  return anchorLink(options, cellId);
}

function anchorLink(options: Pick<ReportOptions, "trialsHref" | "pageOf">, anchor: string): string {
  return `${options.pageOf?.get(anchor) ?? options.trialsHref}#${anchor}`;
}

/** A cell's anchor on one of its trials pages (`page`: a file name from `CellTrials.pages`). */
export function cellPageLink(page: string, cellId: string): string {
  return `${encodeURI(page)}#${cellId}`;
}

/** The viewer's trial list filtered to a cell: its model, benchmark and configuration facets (viewer/filters.ts). */
export function cellViewerLink(viewerUrl: string, cell: Pick<CellTrials, "model" | "benchmark" | "facets">): string {
  const params = new URLSearchParams({ model: cell.model, benchmark: cell.benchmark });
  for (const [facet, label] of Object.entries(cell.facets)) params.set(`f.${facet}`, label);
  return `${viewerUrl.replace(/\/?$/, "/")}?${params}`;
}
