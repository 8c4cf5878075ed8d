/**
 * The tables every study's report can show, each declared once (core/result-table.ts): the
 * self-audit chronology, the pre-registration deviations, the sequential looks, the analyses left
 * out, the other families' contrasts (also in the scorecard's Markdown) and the trials behind each
 * cell. The report renders them (src/report/sections/), adding links where a cell is one.
 */
import type { ChronologyEntry } from "../../contracts/chronology.js";
import type { ContrastAtLook } from "../../run/sequential/monitor.js";
import { defineTable } from "./result-table.js";
import type { Deviation } from "./preregistration.js";
import type { LeftOut, ScorecardFamily } from "./registry.js";
import { bracket, pct, pp, pValue } from "./text.js";

function deltaText(entry: ChronologyEntry): string {
  const value = (x: number | null) => (x === null ? "-" : String(x));
  return entry.delta
    .map((d) => `${d.model} x ${d.benchmark}: ${d.statistic} ${value(d.before)} -> ${value(d.after)}`)
    .join("; ");
}

/** Box 1 of Auditing the Audit: every entry with its eight fields (the report anchors each ID). */
export const CHRONOLOGY_TABLE = defineTable<ChronologyEntry>({
  name: "self-audit chronology",
  columns: [
    { key: "id", header: "ID", cell: (e) => e.id },
    { key: "failureClass", header: "failure class", cell: (e) => e.failure_class },
    { key: "discovered", header: "discovered (how)", cell: (e) => `${e.discovered.date}: ${e.discovered.how}` },
    {
      key: "cells",
      header: "affected cells",
      cell: (e) => e.affected_cells.map((c) => `${c.model} x ${c.benchmark}`).join(", "),
    },
    { key: "symptom", header: "symptom in the numbers", cell: (e) => e.symptom },
    { key: "provenance", header: "provenance", cell: (e) => e.provenance },
    {
      key: "fix",
      header: "fix and regression test",
      cell: (e) => `${e.fix.change ?? "no fix"}; test: ${e.fix.regression_test ?? "none"}`,
    },
    { key: "delta", header: "before -> after", cell: deltaText },
    {
      key: "status",
      header: "status",
      cell: (e) => (e.status_reason ? `${e.status} (${e.status_reason})` : e.status),
    },
  ],
});

/** Each deviation from the pre-registration stamp (ScaffoldSafety Table 3). */
export const DEVIATIONS_TABLE = defineTable<Deviation>({
  name: "pre-registration deviations",
  columns: [
    { key: "id", header: "ID", cell: (d) => d.id },
    { key: "kind", header: "kind", cell: (d) => d.kind },
    { key: "element", header: "element", cell: (d) => d.element },
    { key: "registered", header: "registered", cell: (d) => d.registered },
    { key: "implemented", header: "implemented", cell: (d) => d.implemented },
    { key: "when", header: "when", cell: (d) => d.when },
  ],
});

const lookPp = (x: number) => `${(100 * x).toFixed(1)} pp`;

export interface LookRow {
  look: number;
  contrast: ContrastAtLook;
}

/** Every contrast at every look; a contrast decided at an earlier look shows only its boundary. */
export const SEQUENTIAL_LOOKS_TABLE = defineTable<LookRow>({
  name: "sequential looks",
  columns: [
    { key: "look", header: "look", cell: (r) => String(r.look) },
    { key: "contrast", header: "contrast", cell: (r) => r.contrast.contrast },
    {
      key: "estimate",
      header: "estimate",
      unit: "pp",
      cell: ({ look, contrast: c }) => (earlier(look, c) || c.estimate === null ? "-" : lookPp(c.estimate)),
    },
    {
      key: "z",
      header: "z",
      cell: ({ look, contrast: c }) => (earlier(look, c) || c.z === null ? "-" : c.z.toFixed(2)),
    },
    { key: "boundary", header: "boundary", cell: ({ contrast: c }) => `+/-${c.critical.toFixed(3)}` },
    {
      key: "rci",
      header: "repeated CI",
      unit: "pp",
      cell: ({ look, contrast: c }) =>
        earlier(look, c) || c.rci === null ? "-" : `[${lookPp(c.rci[0])}, ${lookPp(c.rci[1])}]`,
    },
    {
      key: "decision",
      header: "decision",
      cell: ({ look, contrast: c }) =>
        earlier(look, c)
          ? `decided at look ${c.decidedAt}`
          : (c.decision ?? (c.crossed ? `crossed (${c.crossed})` : "continue")),
    },
  ],
});

function earlier(look: number, c: ContrastAtLook): boolean {
  return c.decidedAt !== null && c.decidedAt < look;
}

/** The analyses a study's kinds left out, each with its reason. */
export const LEFT_OUT_TABLE = defineTable<LeftOut>({
  name: "analyses left out",
  columns: [
    { key: "analysis", header: "analysis", cell: (l) => l.analysis },
    { key: "reason", header: "left out because", cell: (l) => l.reason },
  ],
});

/** A family other than the primary: its contrasts against its reference (the scorecard's card and the report). */
export const FAMILY_CONTRASTS_TABLE = defineTable<ScorecardFamily["contrasts"][number]>({
  name: "other family contrasts",
  markdownRule: "spaced",
  columns: [
    { key: "condition", header: "condition", cell: (c) => c.condition },
    {
      key: "rd",
      header: "RD [95% CI]",
      unit: "pp",
      cell: (c) => (c.rd === null ? "-" : `${pp(c.rd)} ${c.ci95 ? bracket(c.ci95, pp) : ""}`),
    },
    // The card's heading is terser than the report's.
    {
      key: "pAdjusted",
      header: { text: "p adjusted", markdown: "p adj" },
      cell: (c) => (c.pAdjusted === null ? "-" : pValue(c.pAdjusted)),
    },
    { key: "verdict", header: "verdict", cell: (c) => c.verdict },
  ],
});

/** A fine cell (model x benchmark x configuration) and its rate in the primary population. */
export interface TrialCellRow {
  model: string;
  benchmark: string;
  configuration: string;
  rate: number | null | undefined;
  parseFailureRate: number | null;
}

/** Every fine cell with its trials (the report links the configuration and the trials pages). */
export const TRIAL_CELLS_TABLE = defineTable<TrialCellRow>({
  name: "trials behind each cell",
  columns: [
    { key: "model", header: "model", cell: (c) => c.model },
    { key: "benchmark", header: "benchmark", cell: (c) => c.benchmark },
    { key: "configuration", header: "configuration", cell: (c) => c.configuration },
    { key: "rate", header: "rate", unit: "%", cell: (c) => pct(c.rate) },
    { key: "parseFailures", header: "parse failures", unit: "%", cell: (c) => pct(c.parseFailureRate) },
    { key: "trials", header: "trials", cell: () => "trials" },
  ],
});
