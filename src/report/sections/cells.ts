/**
 * Every fine cell (model x benchmark x configuration) with its trials: a link to the trials pages
 * that hold them (and to the viewer's list filtered to the cell when the report knows the
 * viewer's URL). A fixed number of links per cell, so report.html does not grow with the trials.
 */
import { ALL, cellId } from "../../analysis/index.js";
import { TRIAL_CELLS_TABLE } from "../../analysis/core/study-tables.js";
import { type Content, el, raw } from "../html.js";
import { cellLink, cellPageLink, cellViewerLink } from "../links.js";
import { htmlTable } from "../result-table.js";
import { type CellTrials, type ReportContext, type ReportOptions, registerReportSection } from "./registry.js";

function trialsLinks(options: ReportOptions, id: string, cell: CellTrials | undefined): Content {
  if (!cell || cell.pages.length === 0) return el("a", { href: cellLink(options, id) }, "trials");
  const first = cell.pages[0];
  const last = cell.pages[cell.pages.length - 1];
  return [
    el("a", { href: cellPageLink(first, id) }, `${cell.trials} trial(s)`),
    cell.pages.length === 1
      ? ` on page ${cell.firstPage}`
      : [
          " on pages ",
          el("a", { href: cellPageLink(first, id) }, String(cell.firstPage)),
          " to ",
          el("a", { href: cellPageLink(last, id) }, String(cell.firstPage + cell.pages.length - 1)),
        ],
    options.viewerUrl ? [raw(" · "), el("a", { href: cellViewerLink(options.viewerUrl, cell) }, "in the viewer")] : "",
  ];
}

function cells({ analysis, options }: ReportContext) {
  const population = analysis.meta.primaryPopulation;
  const fine = analysis.rates.filter((c) => c.model !== ALL && c.benchmark !== ALL);
  return [
    el("h2", { id: "cells" }, "Trials behind each cell"),
    el(
      "p",
      { class: "muted" },
      "Each cell opens its trials, with their exact messages, responses and scores, on the trials pages (or in the viewer).",
    ),
    htmlTable(
      TRIAL_CELLS_TABLE,
      fine.map((c) => ({ ...c, rate: c[population]?.rate })),
      {
        rich: {
          configuration: (c) => el("a", { href: cellLink(options, c.id) }, c.configuration),
          trials: (c) => {
            const id = cellId(c.model, c.benchmark, c.configuration);
            return el("span", { class: "trial-links" }, trialsLinks(options, id, options.cellTrials?.get(id)));
          },
        },
      },
    ),
  ];
}

registerReportSection({ name: "cells", toc: { id: "cells", label: "Trials behind each cell" }, render: cells });
