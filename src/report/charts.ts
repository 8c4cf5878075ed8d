/**
 * Charts as static SVG, rendered server-side with Observable Plot on a linkedom document (no
 * browser, no script in the output). Plot writes labels as text nodes, so they come out escaped.
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import type { StudyAnalysis } from "../analysis/index.js";
import { ALL, contrastGroups, scopeLabel } from "../analysis/index.js";
import { type Html, raw } from "./html.js";

const WIDTH = 960;

function svg(options: Plot.PlotOptions): Html {
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  const node = Plot.plot({ ...options, document: document as unknown as Plot.PlotOptions["document"] });
  return raw((node as unknown as { outerHTML: string }).outerHTML);
}

const percent = (v: number) => `${(100 * v).toFixed(0)}%`;
const points = (v: number) => `${v > 0 ? "+" : ""}${(100 * v).toFixed(0)} pp`;

/** Risk differences with bootstrap 95% CIs, per configuration, pooled and per benchmark. */
export function forestPlot(analysis: StudyAnalysis): Html | null {
  // Per format when format is a facet: RDs are never pooled across formats.
  const groups = contrastGroups(analysis.contrasts[analysis.meta.primaryPopulation]);
  const rows = groups.flatMap(({ pooled, byBenchmark }) =>
    [pooled, ...byBenchmark].flatMap((scope) =>
      scope.contrasts
        .filter((c) => c.riskDifference)
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
  return svg({
    width: WIDTH,
    height: 60 + 26 * rows.length,
    marginLeft: 260,
    x: { label: `risk difference vs ${analysis.meta.reference} (95% bootstrap CI)`, tickFormat: points, grid: true },
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
        title: (d: (typeof rows)[number]) => `${d.label}: ${points(d.rd)} [${points(d.lo)}, ${points(d.hi)}]`,
      }),
    ],
  });
}

/** Model x configuration safety rates (all benchmarks); each cell links to its trials. */
export function heatmap(analysis: StudyAnalysis, trialsHref: string): Html | null {
  const population = analysis.meta.primaryPopulation;
  const cells = analysis.rates
    .filter((c) => c.benchmark === ALL && c[population])
    .map((c) => ({
      model: c.model === ALL ? "all models" : c.model,
      configuration: c.configuration,
      rate: c[population]!.rate,
      n: c[population]!.n,
      href: `${trialsHref}#${c.id}`,
    }));
  if (cells.length === 0) return null;
  const models = [...new Set(cells.map((c) => c.model))].sort(
    (a, b) => Number(a === "all models") - Number(b === "all models"),
  );
  const configurations = [...new Set(cells.map((c) => c.configuration))];
  return svg({
    width: WIDTH,
    height: 80 + 40 * models.length,
    marginLeft: 140,
    marginBottom: 60,
    padding: 0.04,
    x: { label: "configuration", tickRotate: -20, domain: configurations },
    y: { label: null, domain: models },
    color: {
      type: "quantize",
      n: 10,
      scheme: "rdylgn",
      domain: [0, 1],
      legend: true,
      label: "safety rate",
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
  if ("skipped" in f) return null;
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
    marginLeft: 260,
    x: { label: `${f.oe} minus ${f.mc} at ${analysis.meta.reference} (pp, 95% CI)`, tickFormat: points, grid: true },
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
  if ("skipped" in curve || curve.specifications.length === 0) return null;
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
      tickFormat: (v: number) => v.toFixed(2),
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
