/**
 * Charts as static SVG, rendered server-side with Observable Plot on a linkedom document (no
 * browser, no script in the output). Plot writes labels as text nodes, so they come out escaped.
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import type { GridResult, StudyAnalysis } from "../analysis/index.js";
import { ALL, contrastGroups, pp, rateNoun, scopeLabel } from "../analysis/index.js";
import { type Html, raw } from "./html.js";

const WIDTH = 960;

function svg(options: Plot.PlotOptions): Html {
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  const node = Plot.plot({ ...options, document: document as unknown as Plot.PlotOptions["document"] });
  return raw((node as unknown as { outerHTML: string }).outerHTML);
}

const percent = (v: number) => `${(100 * v).toFixed(0)}%`;
const pointsAt = (v: number, digits: number) => pp(v, digits);

/** Plot's axis font: 10px sans-serif. A generous average glyph width, so estimates err wide. */
const CHAR_WIDTH = 6.5;

/** The width a label takes on an axis, estimated from its length (no browser to measure). */
export function labelWidth(label: string): number {
  return Math.ceil(label.length * CHAR_WIDTH);
}

/** About `count` tick values covering [lo, hi] at a nice step (1, 2 or 5 x 10^k), ends included. */
export function niceTicks(lo: number, hi: number, count = 8): number[] {
  if (!(hi > lo)) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) / 10 : 0.01;
    return niceTicks(lo - pad, lo + pad, count);
  }
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const ticks: number[] = [];
  // Multiply from integers so 0.1 + 0.2 never shows up as a tick of its own.
  for (let i = first; i <= last; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/** Ticks for a log axis: 1, 2, 5 x 10^k inside [lo, hi], or nice linear ticks when too few fall inside. */
export function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let k = Math.floor(Math.log10(lo)) - 1; k <= Math.ceil(Math.log10(hi)) + 1; k++)
    for (const m of [1, 2, 5]) {
      const v = Number((m * 10 ** k).toPrecision(12));
      if (v >= lo && v <= hi) out.push(v);
    }
  return out.length >= 3 ? out : niceTicks(lo, hi, 5).filter((v) => v > 0);
}

/**
 * The formatter with the fewest decimals (0 to 6) that gives every tick its own label, so an axis
 * never repeats a tick label (a +1 pp step printed at whole points would).
 */
export function distinctTickFormat(ticks: readonly number[], format: (v: number, digits: number) => string) {
  for (let digits = 0; digits <= 6; digits++) {
    const labels = ticks.map((t) => format(t, digits));
    if (new Set(labels).size === labels.length) return (v: number) => format(v, digits);
  }
  return (v: number) => format(v, 6);
}

/** A linear axis over these values: nice ticks, a domain that holds them, and distinct labels. */
function linearAxis(values: readonly number[], format: (v: number, digits: number) => string, count = 8) {
  const finite = values.filter((v) => Number.isFinite(v));
  const ticks = niceTicks(Math.min(...finite), Math.max(...finite), count);
  return {
    domain: [ticks[0], ticks[ticks.length - 1]] as [number, number],
    ticks,
    tickFormat: distinctTickFormat(ticks, format),
  };
}

/** A log axis over these values (and 1): ticks inside a domain that holds them, distinct labels. */
function logAxis(values: readonly number[]) {
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.min(1, ...finite);
  const hi = Math.max(1, ...finite);
  const ticks = logTicks(lo, hi);
  return {
    domain: [Math.min(lo, ticks[0]), Math.max(hi, ticks[ticks.length - 1])] as [number, number],
    ticks,
    tickFormat: distinctTickFormat(ticks, (v, digits) => v.toFixed(Math.max(digits, 2))),
  };
}

/** The left margin that holds the longest y label (with the tick and padding), at least `min`. */
function leftMargin(labels: readonly string[], min = 60): number {
  return Math.max(min, 16 + Math.max(0, ...labels.map(labelWidth)));
}

/** Risk differences with bootstrap 95% CIs, per configuration, pooled and per benchmark. */
export function forestPlot(analysis: StudyAnalysis): Html | null {
  // Per format when format is a facet: RDs are never pooled across formats.
  const groups = contrastGroups(analysis.contrasts[analysis.meta.primaryPopulation]);
  const rows = groups.flatMap(({ pooled, byBenchmark }) =>
    [pooled, ...byBenchmark].flatMap((scope) =>
      scope.contrasts
        .filter((c) => c.riskDifference && !c.withheld)
        .map((c) => ({
          label: `${scopeLabel(scope)} · ${c.condition}`,
          rd: c.riskDifference!.estimate,
          lo: c.riskDifference!.ci95[0],
          hi: c.riskDifference!.ci95[1],
          equivalent: c.notInterpretable
            ? "not interpretable"
            : c.equivalence?.equivalent
              ? "TOST-equivalent"
              : "not equivalent",
        })),
    ),
  );
  if (rows.length === 0) return null;
  const margin = analysis.meta.plan.equivalence.margin;
  const labels = rows.map((r) => r.label);
  return svg({
    width: WIDTH,
    height: 60 + 26 * rows.length,
    marginLeft: leftMargin(labels),
    x: {
      label: `risk difference vs ${analysis.meta.reference} (95% bootstrap CI)`,
      ...linearAxis([...rows.flatMap((r) => [r.lo, r.hi]), -margin, margin, 0], pointsAt),
      grid: true,
    },
    y: { domain: rows.map((r) => r.label), label: null },
    color: {
      domain: ["TOST-equivalent", "not equivalent", "not interpretable"],
      range: ["#2e7d32", "#b3261e", "#9e9e9e"],
      legend: true,
    },
    marks: [
      Plot.ruleX([-margin, margin], { stroke: "#888", strokeDasharray: "4,3" }),
      Plot.ruleX([0], { stroke: "#333" }),
      Plot.ruleY(rows, { y: "label", x1: "lo", x2: "hi", stroke: "equivalent", strokeWidth: 2 }),
      Plot.dot(rows, {
        x: "rd",
        y: "label",
        fill: "equivalent",
        r: 4.5,
        title: (d: (typeof rows)[number]) =>
          `${d.label}: ${pointsAt(d.rd, 1)} [${pointsAt(d.lo, 1)}, ${pointsAt(d.hi, 1)}]`,
      }),
    ],
  });
}

/** Model x configuration rates (all benchmarks: a safety rate or accuracy); each cell links to its trials. */
export function heatmap(analysis: StudyAnalysis, linkOf: (cellId: string) => string): Html | null {
  const population = analysis.meta.primaryPopulation;
  const cells = analysis.rates
    .filter((c) => c.benchmark === ALL && c[population])
    .map((c) => ({
      model: c.model === ALL ? "all models" : c.model,
      configuration: c.configuration,
      rate: c[population]!.rate,
      n: c[population]!.n,
      href: linkOf(c.id),
    }));
  if (cells.length === 0) return null;
  const models = [...new Set(cells.map((c) => c.model))].sort(
    (a, b) => Number(a === "all models") - Number(b === "all models"),
  );
  const configurations = [...new Set(cells.map((c) => c.configuration))];
  // Labels are never clipped: the left margin holds the longest model name; configuration
  // labels stay horizontal when they fit their column, else turn 30 degrees with a bottom margin
  // (and a left margin) that holds the longest one.
  const marginLeft = leftMargin(models, 80);
  const longest = Math.max(...configurations.map(labelWidth));
  const column = (WIDTH - marginLeft - 20) / configurations.length;
  const rotate = longest > column - 8;
  const angle = (30 * Math.PI) / 180;
  const firstSpill = rotate ? Math.cos(angle) * labelWidth(configurations[0]) - column / 2 : 0;
  return svg({
    width: WIDTH,
    height: 80 + 40 * models.length + (rotate ? Math.ceil(Math.sin(angle) * longest) : 0),
    marginLeft: Math.max(marginLeft, Math.ceil(firstSpill) + 8),
    marginRight: 20,
    marginBottom: rotate ? 44 + Math.ceil(Math.sin(angle) * longest) : 44,
    padding: 0.04,
    x: { label: "configuration", ...(rotate ? { tickRotate: -30 } : {}), domain: configurations },
    y: { label: null, domain: models },
    color: {
      type: "quantize",
      n: 10,
      scheme: "rdylgn",
      domain: [0, 1],
      legend: true,
      label: rateNoun(analysis.counts.benchmarks, analysis.meta.measures),
      tickFormat: percent,
    },
    marks: [
      Plot.cell(cells, {
        x: "configuration",
        y: "model",
        fill: "rate",
        href: "href",
        title: (d: (typeof cells)[number]) => `${d.model} · ${d.configuration}: ${percent(d.rate)} (n=${d.n})`,
      }),
      Plot.text(cells, {
        x: "configuration",
        y: "model",
        text: (d: (typeof cells)[number]) => `${(100 * d.rate).toFixed(0)}%`,
        fill: "#111",
        fontSize: 12,
      }),
    ],
  });
}

/** OE minus MC at the reference condition, per benchmark and model, with 95% CIs. */
export function formatGapBars(analysis: StudyAnalysis): Html | null {
  const f = analysis.format;
  if (!f || "skipped" in f) return null;
  const rows = f.gaps
    .filter((g) => g.gap.estimate !== null)
    .map((g) => ({
      label: `${g.benchmark === ALL ? "all benchmarks" : g.benchmark} · ${g.model === ALL ? "all models" : g.model}`,
      gap: g.gap.estimate!,
      lo: g.gap.ci95?.[0] ?? g.gap.estimate!,
      hi: g.gap.ci95?.[1] ?? g.gap.estimate!,
      direction: g.gap.estimate! > 0 ? `${f.mc} understates` : `${f.mc} overstates`,
    }));
  if (rows.length === 0) return null;
  return svg({
    width: WIDTH,
    height: 60 + 24 * rows.length,
    marginLeft: leftMargin(rows.map((r) => r.label)),
    x: {
      label: `${f.oe} minus ${f.mc} at ${analysis.meta.reference} (pp, 95% CI)`,
      ...linearAxis([...rows.flatMap((r) => [r.lo, r.hi, r.gap]), 0], pointsAt),
      grid: true,
    },
    y: { domain: rows.map((r) => r.label), label: null },
    color: { domain: [`${f.mc} understates`, `${f.mc} overstates`], range: ["#4e79a7", "#e15759"], legend: true },
    marks: [
      Plot.barX(rows, { y: "label", x: "gap", fill: "direction", fillOpacity: 0.8 }),
      Plot.ruleY(rows, { y: "label", x1: "lo", x2: "hi", stroke: "#222" }),
      Plot.ruleX([0], { stroke: "#333" }),
    ],
  });
}

/** The specification curve: odds ratios sorted, coloured by significance, log scale. */
export function specCurveChart(analysis: StudyAnalysis): Html | null {
  const curve = analysis.specificationCurve;
  if (!curve || "skipped" in curve || curve.specifications.length === 0) return null;
  const rows = [...curve.specifications]
    .sort((a, b) => a.oddsRatio - b.oddsRatio)
    .map((s, rank) => ({
      rank: rank + 1,
      or: s.oddsRatio,
      significance: s.p < curve.alpha ? `p < ${curve.alpha}` : "not significant",
      label: Object.entries(s.spec)
        .map(([k, v]) => `${k}=${v}`)
        .join(", "),
    }));
  return svg({
    width: WIDTH,
    height: 320,
    marginLeft: 60,
    x: { label: "specification (sorted by odds ratio)", interval: 1, tickFormat: (v: number) => String(v) },
    y: {
      type: "log",
      label: `odds ratio, ${curve.contrast} vs ${curve.reference}`,
      grid: true,
      ...logAxis(rows.map((r) => r.or)),
    },
    color: { domain: [`p < ${curve.alpha}`, "not significant"], range: ["#1f5fbf", "#9aa3b2"], legend: true },
    marks: [
      Plot.ruleY([1], { stroke: "#333" }),
      Plot.dot(rows, {
        x: "rank",
        y: "or",
        fill: "significance",
        r: 4,
        title: (d: (typeof rows)[number]) => `${d.label}: OR ${d.or.toFixed(3)}`,
      }),
    ],
  });
}

/** One cell of the accuracy vs cost-per-correct plane. */
export interface ParetoPoint {
  model: string;
  scaffold: string;
  accuracy: number;
  costPerCorrect: number;
  onFrontier: boolean;
}

/**
 * Accuracy against realized cost per correct (log x axis) for every model x scaffold cell of one
 * slice and level (GAIA comparison Figure 2): colour is the model, the symbol the scaffold, and
 * the Pareto frontier is drawn as a step line through its cells.
 */
export function paretoChart(points: readonly ParetoPoint[]): Html | null {
  const shown = points.filter(
    (p) => Number.isFinite(p.accuracy) && Number.isFinite(p.costPerCorrect) && p.costPerCorrect > 0,
  );
  if (shown.length === 0) return null;
  const costs = shown.map((p) => p.costPerCorrect);
  const lo = Math.min(...costs) / 1.25;
  const hi = Math.max(...costs) * 1.25;
  const ticks = logTicks(lo, hi);
  const frontier = shown.filter((p) => p.onFrontier).sort((a, b) => a.costPerCorrect - b.costPerCorrect);
  return svg({
    width: WIDTH,
    height: 420,
    marginLeft: 60,
    marginRight: 40,
    x: {
      type: "log",
      domain: [Math.min(lo, ticks[0]), Math.max(hi, ticks[ticks.length - 1])],
      ticks,
      tickFormat: distinctTickFormat(ticks, (v, digits) => `$${v.toFixed(Math.max(digits, 2))}`),
      label: "realized cost per correct (USD, log scale)",
      grid: true,
    },
    y: { ...linearAxis([...shown.map((p) => p.accuracy), 0, 1], percent, 5), label: "accuracy", grid: true },
    color: { legend: true, label: "model" },
    symbol: { legend: true, label: "scaffold" },
    marks: [
      Plot.line(frontier, {
        x: "costPerCorrect",
        y: "accuracy",
        curve: "step-after",
        stroke: "#888",
        strokeDasharray: "4,3",
      }),
      Plot.dot(shown, {
        x: "costPerCorrect",
        y: "accuracy",
        stroke: "model",
        symbol: "scaffold",
        r: 5,
        strokeWidth: 2,
        title: (d: ParetoPoint) =>
          `${d.model} · ${d.scaffold}: ${percent(d.accuracy)} at $${d.costPerCorrect.toFixed(3)} per correct${d.onFrontier ? " (frontier)" : ""}`,
      }),
    ],
  });
}

/** The configuration grid's score neighbourhood: each (model, benchmark)'s configuration scores, range and mean. */
export function gridNeighbourhoodChart(grid: GridResult): Html | null {
  const points = grid.grids.flatMap((g) =>
    g.models.flatMap((model, m) =>
      g.scores.map((row, c) => ({
        slice: `${model} / ${g.benchmark}`,
        score: row[m],
        configuration: g.configurations[c],
      })),
    ),
  );
  if (points.length === 0) return null;
  const slices = [...new Set(points.map((p) => p.slice))];
  const summary = slices.map((slice) => {
    const scores = points.filter((p) => p.slice === slice).map((p) => p.score);
    return {
      slice,
      min: Math.min(...scores),
      max: Math.max(...scores),
      mean: scores.reduce((a, b) => a + b, 0) / scores.length,
    };
  });
  return svg({
    width: WIDTH,
    height: 60 + 22 * slices.length,
    marginLeft: leftMargin(slices, 80),
    marginRight: 20,
    x: { label: "score under each configuration", domain: [0, 1], tickFormat: percent },
    y: { label: null, domain: slices },
    marks: [
      Plot.ruleY(summary, { y: "slice", x1: "min", x2: "max", stroke: "#999" }),
      Plot.dot(points, {
        x: "score",
        y: "slice",
        r: 2.5,
        fill: "#4c78a8",
        fillOpacity: 0.5,
        title: (d: (typeof points)[number]) => `${d.slice} · ${d.configuration}: ${percent(d.score)}`,
      }),
      Plot.tickX(summary, { x: "mean", y: "slice", stroke: "#d62728", strokeWidth: 2 }),
    ],
  });
}

/** rho_flip per model pair and benchmark (full envelope), with the strict counts N+ / N-. */
export function rankFlipMatrix(grid: GridResult): Html | null {
  const cells = grid.envelopes[0].benchmarks.flatMap((b) =>
    (b.rankFlip?.pairs ?? []).map((p) => ({
      benchmark: b.benchmark,
      pair: `${p.modelA} vs ${p.modelB}`,
      rho: p.rhoFlip,
      label: `${p.rhoFlip.toFixed(3)} (${p.nPlus}/${p.nMinus}/${p.nZero})`,
    })),
  );
  if (cells.length === 0) return null;
  const pairs = [...new Set(cells.map((c) => c.pair))];
  const benchmarks = [...new Set(cells.map((c) => c.benchmark))];
  return svg({
    width: WIDTH,
    height: 90 + 36 * pairs.length,
    marginLeft: leftMargin(pairs, 80),
    marginRight: 20,
    padding: 0.04,
    x: { label: "benchmark", domain: benchmarks },
    y: { label: null, domain: pairs },
    color: { type: "quantize", n: 5, scheme: "oranges", domain: [0, 0.5], legend: true, label: "rho_flip" },
    marks: [
      Plot.cell(cells, {
        x: "benchmark",
        y: "pair",
        fill: "rho",
        title: (d: (typeof cells)[number]) => `${d.pair} on ${d.benchmark}: rho_flip ${d.label} (N+/N-/N0)`,
      }),
      Plot.text(cells, { x: "benchmark", y: "pair", text: "label", fill: "#111", fontSize: 11 }),
    ],
  });
}
