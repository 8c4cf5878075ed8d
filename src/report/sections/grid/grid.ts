/** The configuration grid (SafetyRepro) and its GRID card, rendered from the stored record. */
import type { GridResult } from "../../../analysis/index.js";
import { attributionRows, attributionVerdict, axisAttributionTable } from "../../../analysis/grid/attribution.js";
import { receiptTable } from "../../../analysis/grid/card.js";
import {
  dispersionRows,
  dispersionTable,
  tierRows,
  tiersTable,
  unreadableTable,
  varianceTable,
} from "../../../analysis/grid/grid-tables.js";
import { figure } from "../../blocks.js";
import { gridNeighbourhoodChart, rankFlipMatrix } from "../../charts.js";
import { type Content, el } from "../../html.js";
import { htmlTable } from "../../result-table.js";
import { type ReportContext, registerReportSection } from "../registry.js";

function tiers(g: GridResult): Content {
  return htmlTable(tiersTable(g.envelopes.map((e) => e.name)), tierRows(g.envelopes, g.card.tiers));
}

/** The |C| = 4 caveat under the tiers table, when a subset has four configurations. */
function tierNotes(g: GridResult): Content {
  const note = g.card.tiers?.find((t) => t.note)?.note;
  return note ? el("p", { class: "muted" }, `* ${note}.`) : null;
}

/** Which axis moves the scores and which drives the flips, per benchmark (matched one-axis swaps). */
function attribution(g: GridResult): Content {
  const rows = g.card.attribution ?? [];
  if (rows.length === 0) return el("p", { class: "muted" }, "No benchmark with two or more configurations.");
  return [
    el("ul", {}, ...rows.map((a) => el("li", {}, attributionVerdict(a)))),
    htmlTable(axisAttributionTable, attributionRows(rows)),
    el(
      "p",
      { class: "muted" },
      "A swap is a pair of configurations that differ on this axis alone; |Δ| is a model's score change across it; " +
        "a reversal is a model pair whose strict order differs on its two sides. Computed exactly on the grid " +
        "(the paper's App. S uses SHAP on LightGBM surrogates; see docs/ANALYSIS.md).",
    ),
  ];
}

function cardTable(g: GridResult): Content {
  return htmlTable(
    dispersionTable(g.card.thresholds),
    dispersionRows(g.card.entries, g.envelopes[0]?.benchmarks ?? []),
  );
}

/** Why CFR reads N/A on a benchmark (its loader: no pass/fail cutoff applies). */
function cfrNotes(g: GridResult): Content {
  const reasons = new Map(
    g.envelopes[0]?.benchmarks.flatMap((b) => (b.cfrNotApplicable ? [[b.benchmark, b.cfrNotApplicable]] : [])),
  );
  if (reasons.size === 0) return null;
  return el(
    "p",
    { class: "muted" },
    ...[...reasons].map(([benchmark, reason]) => `CFR N/A on ${benchmark}: ${reason}. `),
  );
}

function receipt(g: GridResult): Content {
  const first = g.card.entries[0];
  if (!first) return null;
  return htmlTable(receiptTable, first.receipt);
}

function variance(g: GridResult): Content {
  if (g.variance.length === 0)
    return el("p", { class: "muted" }, "No free-form slice with a varying implementation axis.");
  return htmlTable(varianceTable, g.variance);
}

function grid({ analysis }: ReportContext): Content {
  const g = analysis.grid;
  if (!g) return null;
  if ("skipped" in g)
    return [el("h2", { id: "grid" }, "Configuration grid"), el("p", { class: "muted" }, `Skipped: ${g.skipped}`)];
  return [
    el("h2", { id: "grid" }, "Configuration grid and GRID card"),
    el(
      "p",
      {},
      `Axes ${g.axes.join(", ")}; ${g.cells.total} cells (${g.cells.unreadable.length} unreadable: no number); roster ${g.roster.join(", ")}. Scores are item means of per-item means over decoding seeds and attempts.`,
    ),
    g.rules ? el("p", {}, `Envelope rules ${g.rules.path}: sha256 ${g.rules.sha256} (${g.rules.status}).`) : null,
    el("h3", {}, "(i) Axis receipt at the reference configuration"),
    receipt(g),
    el("h3", {}, "(ii)-(v) Point score, neighbourhood, verdict and ranking stability"),
    cardTable(g),
    cfrNotes(g),
    figure(
      gridNeighbourhoodChart(g),
      "Score neighbourhood: every configuration's score (dots), min to max (grey), mean (red)",
    ),
    figure(rankFlipMatrix(g), "ρ_flip per model pair and benchmark over the full envelope, with N+/N-/N0"),
    el("h3", {}, "Envelope tiers"),
    tiers(g),
    tierNotes(g),
    el("h3", {}, "Per-axis attribution: which axis moves scores, which drives the flips"),
    attribution(g),
    el("h3", {}, "Variance attribution (free-form slice)"),
    variance(g),
    el("h3", {}, "(vi) Scope statement: not varied"),
    el("ul", {}, ...g.card.scope.map((s) => el("li", {}, s))),
    g.cells.unreadable.length
      ? [el("h3", {}, "Unreadable cells (no number)"), htmlTable(unreadableTable, g.cells.unreadable)]
      : null,
  ];
}

registerReportSection({
  name: "grid",
  toc: { id: "grid", label: "Configuration grid" },
  card: "grid",
  render: grid,
});
