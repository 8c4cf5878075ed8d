/**
 * The contrast tables, declared once: each condition vs the reference (the --full summary and the
 * report), its narrow overview form, and the scorecard's NNT/NNH tables (the card file and the
 * report's scorecard).
 */
import type { Interval } from "../../stats/index.js";
import {
  type Contrast,
  type NumberNeededEstimate,
  shownNumberNeeded,
  shownRdInterval,
} from "../core/contrast-model.js";
import { defineTable } from "../core/result-table.js";
import {
  bracket,
  NUMBER_NEEDED_HEADING,
  num,
  numberNeeded,
  numberNeededText,
  pct,
  pp,
  pValue,
  recoveryText,
} from "../core/text.js";

/** One NNH row of the scorecard: a configuration against the reference in one scope. */
export interface NnhRow {
  /** The scope's label ("pooled", a benchmark, "model m1"), with its format when stratified. */
  scope: string;
  kind: "pooled" | "benchmark" | "model";
  format: string | null;
  condition: string;
  riskDifference: number | null;
  rdCi95: Interval | null;
  /** Value, direction (harm: NNH, benefit: NNT) and Altman's interval. */
  nnh: NumberNeededEstimate | null;
  equivalent: boolean | null;
  verdict: string;
}

/** App. I: per model, the headline NNH of the standard variant and the residual NNH once options propagate. */
export interface ResidualNnhRow {
  model: string;
  /** The loss of the standard variant vs the reference, as an NNH with Altman's interval. */
  headline: NumberNeededEstimate | null;
  residual: NumberNeededEstimate | null;
  recovery: number | null;
  recoveryCi95?: Interval | null;
  /** Why the row has no reading (the integrity gate, or no loss to recover). */
  note: string | null;
}

/** A number with its interval after a space; the number alone when there is no interval. */
export function withInterval(
  point: string,
  interval: Interval | null | undefined,
  format: (v: number) => string,
): string {
  return interval ? `${point} ${bracket(interval, format)}` : point;
}

/** The RD with its interval; the estimate alone when the interval is withheld (too few cases). */
export function rdText(c: Contrast): string {
  return withInterval(pp(c.riskDifference?.estimate), shownRdInterval(c), (v) => pp(v));
}

/**
 * Each condition vs the reference in one scope. The report shows more than the terminal: the
 * rate's n, the risk ratio, the OR's error and each TOST margin of the sensitivity analysis.
 */
export const CONTRAST_TABLE = defineTable<Contrast>({
  name: "each condition vs the reference",
  columns: [
    { key: "condition", header: "condition", cell: (c) => c.condition },
    {
      key: "rate",
      header: "rate",
      unit: "%",
      align: "right",
      // The report says how many rows the rate stands on; the terminal's column stays narrow.
      cell: (c, rendering) => (rendering === "html" ? `${pct(c.rate?.rate)} (n=${c.rate?.n ?? 0})` : pct(c.rate?.rate)),
    },
    { key: "rd", header: "RD [95% bootstrap CI]", unit: "pp", align: "right", cell: rdText },
    {
      key: "rr",
      header: "RR",
      align: "right",
      // The risk ratio is the report's alone: the terminal reads the RD and the OR.
      shownIn: ["html"],
      cell: (c) =>
        c.riskRatio?.estimate && !c.withheld
          ? withInterval(num(c.riskRatio.estimate), c.riskRatio.ci95, (v) => num(v))
          : "-",
    },
    {
      key: "or",
      header: "OR [95% cluster CI]",
      align: "right",
      // The overview's table leaves the OR out; a narrow terminal can lose it first.
      keptWhenNarrow: false,
      cell: (c, rendering) => {
        const or = c.oddsRatio;
        // The report names why the OR is missing; the terminal says "n/a".
        if ("error" in or) return rendering === "html" ? `n/a: ${or.error}` : "n/a";
        if (c.withheld) return "-";
        return rendering === "html"
          ? withInterval(num(or.estimate), or.ci95, (v) => num(v))
          : `${num(or.estimate)} ${bracket(or.ci95, (v) => num(v))}`;
      },
    },
    {
      key: "p",
      // The terminal's heading is terser than the report's.
      header: { text: "p raw / adj", html: "p raw / adjusted" },
      align: "right",
      cell: (c) =>
        "error" in c.oddsRatio || c.withheld ? "-" : `${pValue(c.oddsRatio.p)} / ${pValue(c.oddsRatio.pAdjusted)}`,
    },
    {
      key: "nn",
      header: NUMBER_NEEDED_HEADING,
      align: "right",
      cell: (c) => numberNeededText(shownNumberNeeded(c)),
    },
    {
      key: "tost",
      // The report lists the equivalence verdict at each sensitivity margin beside the primary one.
      header: { text: "TOST", html: "TOST (sensitivity)" },
      keptWhenNarrow: false,
      cell: (c, rendering) => {
        if (c.notInterpretable) return rendering === "html" ? "not interpretable" : "n/i";
        if (!c.equivalence) return "-";
        const primary = c.equivalence.equivalent ? "yes" : "no";
        if (rendering !== "html") return primary;
        const margins = c.equivalence.sensitivity.map((s) => `${pp(s.margin, 0)}: ${s.equivalent ? "yes" : "no"}`);
        return `${primary} (${margins.join(", ")})`;
      },
    },
    { key: "verdict", header: "verdict", cell: (c) => c.verdict },
  ],
});

/**
 * The overview's contrast table: the columns a terminal holds at a glance (the OR, raw p and the
 * NNT/NNH interval are in --full, analysis.json and the report).
 */
export const CONTRAST_OVERVIEW_TABLE = defineTable<Contrast>({
  name: "each condition vs the reference (overview)",
  columns: [
    { key: "condition", header: "condition", cell: (c) => c.condition },
    { key: "rate", header: "rate", unit: "%", align: "right", cell: (c) => pct(c.rate?.rate) },
    { key: "rd", header: "RD [95% CI]", unit: "pp", align: "right", cell: rdText },
    {
      key: "p",
      header: "p adj",
      align: "right",
      cell: (c) => ("error" in c.oddsRatio || c.withheld ? "-" : pValue(c.oddsRatio.pAdjusted)),
    },
    {
      key: "nn",
      header: "NNT/NNH",
      align: "right",
      cell: (c) => numberNeeded(shownNumberNeeded(c)?.value, shownNumberNeeded(c)?.direction),
    },
    { key: "verdict", header: "verdict", cell: (c) => c.verdict },
  ],
});

/** The scorecard's NNT/NNH per configuration and scope (card file and report). */
export const NNH_TABLE = defineTable<NnhRow>({
  name: "number needed to harm",
  columns: [
    { key: "scope", header: "scope", cell: (r) => r.scope },
    { key: "condition", header: "configuration", cell: (r) => r.condition },
    {
      key: "rd",
      header: "RD [95% CI]",
      unit: "pp",
      align: "right",
      cell: (r) => withInterval(pp(r.riskDifference), r.rdCi95, (v) => pp(v)),
    },
    { key: "nn", header: NUMBER_NEEDED_HEADING, align: "right", cell: (r) => numberNeededText(r.nnh) },
    {
      key: "tost",
      header: "TOST-equivalent",
      cell: (r) => (r.equivalent === null ? "-" : r.equivalent ? "yes" : "no"),
    },
    { key: "verdict", header: "verdict", cell: (r) => r.verdict },
  ],
});

/** App. I's headline and residual NNH per model (card file and report). */
export const RESIDUAL_NNH_TABLE = defineTable<ResidualNnhRow>({
  name: "residual number needed to harm",
  columns: [
    {
      key: "model",
      header: "model",
      // The card stores "all models"; the report also reads older records that stored "all".
      cell: (r, rendering) => (rendering === "html" && r.model === "all" ? "all models" : r.model),
    },
    {
      key: "headline",
      header: `headline ${NUMBER_NEEDED_HEADING}`,
      align: "right",
      cell: (r) => numberNeededText(r.headline),
    },
    {
      key: "residual",
      header: `residual ${NUMBER_NEEDED_HEADING}`,
      align: "right",
      cell: (r) => numberNeededText(r.residual),
    },
    {
      key: "recovery",
      header: "recovery",
      unit: "%",
      align: "right",
      cell: (r) => recoveryText(r.recovery, r.recoveryCi95),
    },
    { key: "note", header: "note", cell: (r) => r.note ?? "" },
  ],
});
