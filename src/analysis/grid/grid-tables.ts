/**
 * The configuration grid's result tables, each declared once and rendered as the terminal summary
 * (`renderText`), the GRID card (`renderMarkdown`) and the report (src/report/sections/grid).
 * Where a rendering shows a column differently (Greek letters and CIs in the report, ASCII in the
 * terminal), the column says so.
 */
import { defineTable, type Rendering, type ResultTable } from "../core/result-table.js";
import { num, pct } from "../core/text.js";
import { type GridCardEntry, type GridCardTier, type RangeValue, rangeText } from "./card.js";
import { type EnvelopeBenchmark, smallEnvelopeNote } from "./envelope.js";
import type { GridVariance } from "./robustness.js";

const score = (v: number | null | undefined) => num(v, 3);
const isText = (rendering: Rendering) => rendering === "text";

/** One benchmark of the envelope-tiers table: its cell under each subset (full envelope, then the tiers). */
export interface TierRow {
  benchmark: string;
  /** Every subset analysed, the full envelope first. */
  envelopes: readonly { name: string; benchmarks: readonly EnvelopeBenchmark[] }[];
  /** The card's tiers, whose notes mark a |C| = 4 subset in the report. */
  tiers: readonly GridCardTier[] | undefined;
}

/** Each benchmark of the full envelope, in order, as a row of the tiers table. */
export function tierRows(envelopes: TierRow["envelopes"], tiers: readonly GridCardTier[] | undefined): TierRow[] {
  return (envelopes[0]?.benchmarks ?? []).map((b) => ({ benchmark: b.benchmark, envelopes, tiers }));
}

/**
 * |C|, rho_flip^max and the reachable orderings per benchmark (rows) and subset (columns). The
 * terminal says what a cell holds once, in the first heading; the report says it in every heading.
 */
export function tiersTable(envelopes: readonly string[]): ResultTable<TierRow> {
  return defineTable<TierRow>({
    name: "envelope tiers",
    columns: [
      { key: "benchmark", header: { text: "benchmark: |C| rho^max ord", html: "benchmark" }, cell: (r) => r.benchmark },
      ...envelopes.map((name, k) => ({
        key: `tier ${k}`,
        header: { text: name, html: `${name}: |C|, ρ_flip max, orderings` },
        cell: (r: TierRow, rendering: Rendering) => tierCell(r, k, rendering),
        keptWhenNarrow: k === 0,
      })),
    ],
  });
}

function tierCell(row: TierRow, k: number, rendering: Rendering): string {
  const envelope = row.envelopes[k];
  const x = envelope?.benchmarks.find((y) => y.benchmark === row.benchmark);
  if (!x?.rankFlip) return "-";
  const orderings = `${x.rankFlip.orderings.length}/${x.rankFlip.possibleOrderings}`;
  // The terminal marks a |C| = 4 subset from its size; the report from the card's tier note.
  if (isText(rendering))
    return `${x.configurations} ${score(x.rankFlip.rhoFlipMax)} ${orderings}${smallEnvelopeNote(x.configurations) ? " *" : ""}`;
  const note = row.tiers?.find((t) => t.envelope === envelope.name && t.benchmark === row.benchmark)?.note;
  return `${x.configurations}, ${score(x.rankFlip.rhoFlipMax)}, ${orderings}${note ? " *" : ""}`;
}

/** One (model, benchmark) of the full envelope: its card entry and the number of configurations it scored. */
export interface DispersionRow {
  entry: GridCardEntry;
  /** Configurations with a score for this model (the dispersion's n); null when the envelope lacks the pair. */
  n: number | null;
}

/** The card's entries in order, each with the dispersion's n from the full envelope. */
export function dispersionRows(entries: readonly GridCardEntry[], full: readonly EnvelopeBenchmark[]): DispersionRow[] {
  return entries.map((entry) => {
    const slice = full.find((b) => b.benchmark === entry.benchmark)?.models.find((m) => m.model === entry.model);
    return { entry, n: slice?.dispersion.n ?? null };
  });
}

/**
 * The score neighbourhood per model and benchmark over the full envelope: the terminal shows the
 * points with n and min, mean, max apart; the report adds the point score at the reference and
 * each statistic's configuration-resample range.
 */
export function dispersionTable(thresholds: readonly number[]): ResultTable<DispersionRow> {
  const neighbourhood = (r: DispersionRow) => r.entry.neighbourhood;
  const withRange = (value: RangeValue, format: (v: number | null) => string, rendering: Rendering) =>
    isText(rendering) ? format(value.point) : rangeText(value, format);
  return defineTable<DispersionRow>({
    name: "score neighbourhood",
    columns: [
      { key: "pair", header: "model / benchmark", cell: (r) => `${r.entry.model} / ${r.entry.benchmark}` },
      {
        key: "point",
        header: "point score",
        shownIn: ["html"],
        cell: (r) =>
          r.entry.pointScore.value === null ? (r.entry.pointScore.note ?? "-") : score(r.entry.pointScore.value),
      },
      { key: "n", header: "n", shownIn: ["text"], cell: (r) => num(r.n, 0), keptWhenNarrow: false },
      { key: "min", header: "min", shownIn: ["text"], cell: (r) => score(neighbourhood(r).min) },
      { key: "mean", header: "mean", shownIn: ["text"], cell: (r) => score(neighbourhood(r).mean) },
      { key: "max", header: "max", shownIn: ["text"], cell: (r) => score(neighbourhood(r).max) },
      {
        key: "range",
        header: "min / mean / max",
        shownIn: ["html"],
        cell: (r) =>
          `${score(neighbourhood(r).min)} / ${score(neighbourhood(r).mean)} / ${score(neighbourhood(r).max)}`,
      },
      {
        key: "sdi",
        header: "SDI",
        unit: "%",
        cell: (r, rendering) => withRange(neighbourhood(r).sdi, (v) => pct(v), rendering),
      },
      ...thresholds.map((theta, k) => ({
        key: `cfr ${theta}`,
        header: { text: `CFR_${theta}`, html: `CFR ${theta}` },
        unit: "%",
        cell: (r: DispersionRow, rendering: Rendering) => {
          const cfr = neighbourhood(r).cfr;
          if (!cfr) return "N/A";
          return cfr[k] ? withRange(cfr[k], (v) => pct(v), rendering) : "";
        },
      })),
      {
        key: "tau",
        header: { text: "tau_R", html: "τ_R" },
        cell: (r, rendering) => withRange(neighbourhood(r).tauR, score, rendering),
      },
    ],
  });
}

/** The free-form slice's variance attribution (Type II shares, rho under Type II and III): the report's table. */
export const varianceTable = defineTable<GridVariance>({
  name: "variance attribution",
  columns: [
    { key: "benchmark", header: "benchmark", cell: (v) => v.benchmark },
    { key: "cells", header: "cells", cell: (v) => String(v.cells) },
    { key: "model", header: "model η²", unit: "%", cell: (v) => pct(typeII(v)?.modelShare) },
    { key: "implementation", header: "implementation η²", unit: "%", cell: (v) => pct(typeII(v)?.implementationShare) },
    { key: "interactions", header: "interactions η²", unit: "%", cell: (v) => pct(typeII(v)?.interactionShare) },
    { key: "rho2", header: "ρ (Type II)", cell: (v) => num(typeII(v)?.rho) },
    { key: "rho3", header: "ρ (Type III)", cell: (v) => num("error" in v.typeIII ? null : v.typeIII.rho) },
  ],
});

function typeII(v: GridVariance) {
  return "error" in v.typeII ? null : v.typeII;
}

/** The cells without a number, left out of every envelope: the report's table (the terminal lists them). */
export interface UnreadableCell {
  model: string;
  benchmark: string;
  configuration: string;
  reason: string;
}

export const unreadableTable = defineTable<UnreadableCell>({
  name: "unreadable cells",
  columns: [
    { key: "model", header: "model", cell: (u) => u.model },
    { key: "benchmark", header: "benchmark", cell: (u) => u.benchmark },
    { key: "configuration", header: "configuration", cell: (u) => u.configuration },
    { key: "reason", header: "reason", cell: (u) => u.reason },
  ],
});
