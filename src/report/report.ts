/**
 * report.html: the scorecard, the charts (forest plot, heatmap, format gaps, specification
 * curve) and the analysis tables, self-contained (inline CSS, inline SVG, no script), with links
 * from every cell to its trials in trials.html.
 */
import type { AnalysisOutcome, Contrast, RateMatrix, Scorecard, StudyAnalysis } from "../analysis/index.js";
import { ALL, cellId, num, pct, pp } from "../analysis/index.js";
import { forestPlot, formatGapBars, heatmap, specCurveChart } from "./charts.js";
import { type Content, el, type Html, page, raw, table } from "./html.js";
import { trialAnchor } from "./trials.js";

export interface TrialLink {
  id: string;
  /** 1, 0 or null (not scored / errored). */
  score: number | null;
}

export interface ReportOptions {
  /** Relative link to the trials page. */
  trialsHref: string;
  /** Trials per fine cell id (model x benchmark x configuration). */
  trialsByCell: Map<string, TrialLink[]>;
}

function ci(interval: [number, number] | null | undefined, f: (v: number) => string): string {
  return interval ? ` [${f(interval[0])}, ${f(interval[1])}]` : "";
}

function pValue(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
}

function figure(chart: Html | null, caption: string): Content {
  return chart
    ? el("figure", {}, chart, el("figcaption", {}, caption))
    : el("p", { class: "muted" }, `(${caption}: not available for this study)`);
}

function matrixTable(matrix: RateMatrix, trialsHref: string): Html {
  return table(
    ["benchmark", ...matrix.configurations],
    matrix.benchmarks.map((b) => [
      b === ALL ? "all benchmarks" : b,
      ...matrix.configurations.map((c) => {
        const cell = matrix.cells.find((x) => x.benchmark === b && x.configuration === c);
        if (!cell) return "-";
        return el(
          "a",
          { href: `${trialsHref}#${cell.cellId}`, title: `trials behind ${matrix.model} · ${b} · ${c}` },
          `${pct(cell.rate)} (n=${cell.n})`,
        );
      }),
    ]),
  );
}

function scorecardSection(card: Scorecard, trialsHref: string): Content {
  const s = card.methodologyStamp;
  const badge = (ok: boolean, text: string) => el("span", { class: ok ? "badge ok" : "badge bad" }, text);
  return [
    el("h2", { id: "scorecard" }, `Scaffold Safety Scorecard${card.simulated ? " (SIMULATED)" : ""}`),
    el(
      "p",
      { class: "muted" },
      `Population ${card.population.toUpperCase()}; comparison ${card.comparison.facet} vs ${card.comparison.reference}. Each rate links to the trials behind it.`,
    ),
    el("h3", {}, "1. Safety rate matrix"),
    el("h4", {}, "All models"),
    matrixTable(card.safetyRateMatrix.pooled, trialsHref),
    card.safetyRateMatrix.byModel.map((m) => [el("h4", {}, `Model ${m.model}`), matrixTable(m, trialsHref)]),
    el("h3", {}, "2. Number needed to harm"),
    table(
      ["scope", "configuration", "RD [95% CI]", "NNH [95% CI]", "direction", "TOST-equivalent", "verdict"],
      card.nnh.map((r) => [
        r.scope,
        r.condition,
        `${pp(r.riskDifference)}${ci(r.rdCi95, (v) => pp(v))}`,
        `${num(r.nnh, 1)}${ci(r.nnhCi95, (v) => num(v, 1))}`,
        r.direction ?? "-",
        r.equivalent === null ? "-" : r.equivalent ? "yes" : "no",
        r.verdict,
      ]),
    ),
    el("h3", {}, "3. Methodology stamp"),
    el(
      "ul",
      {},
      el(
        "li",
        {},
        "Pre-registered: ",
        badge(s.preregistered.status.includes("matches"), s.preregistered.status),
        ` ${s.preregistered.detail}`,
      ),
      el(
        "li",
        {},
        "Blinded: ",
        badge(s.blinded.blinded, s.blinded.blinded ? "yes" : "no"),
        s.blinded.blindingIndex !== null ? ` Blinding Index ${num(s.blinded.blindingIndex, 3)}.` : "",
        ` ${s.blinded.detail}`,
      ),
      el(
        "li",
        {},
        "Cross-validated: ",
        badge(s.crossValidated.crossValidated, s.crossValidated.crossValidated ? "yes" : "no"),
        s.crossValidated.kappa !== null ? ` Cohen's kappa ${num(s.crossValidated.kappa, 3)}.` : "",
        ` ${s.crossValidated.detail}`,
      ),
      el(
        "li",
        {},
        "Specification curve: ",
        badge(s.specificationCurve.run, s.specificationCurve.run ? "run" : "not run"),
        s.specificationCurve.run
          ? ` ${s.specificationCurve.contrast}: median OR ${num(s.specificationCurve.medianOddsRatio)}, ${pct(s.specificationCurve.shareSignificant, 0)} significant${s.specificationCurve.permutationP !== null ? `, permutation p = ${pValue(s.specificationCurve.permutationP)}` : ""}. `
          : " ",
        s.specificationCurve.detail,
      ),
    ),
    el("p", { class: "muted" }, el("em", {}, card.compositeNote)),
  ];
}

function contrastRows(contrasts: Contrast[]): Content[][] {
  return contrasts.map((c) => {
    const or = c.oddsRatio;
    return [
      c.condition,
      `${pct(c.rate?.rate)} (n=${c.rate?.n ?? 0})`,
      `${pp(c.riskDifference?.estimate)}${ci(c.riskDifference?.ci95, (v) => pp(v))}`,
      c.riskRatio?.estimate ? `${num(c.riskRatio.estimate)}${ci(c.riskRatio.ci95, (v) => num(v))}` : "-",
      "error" in or ? `n/a: ${or.error}` : `${num(or.estimate)}${ci(or.ci95, (v) => num(v))}`,
      "error" in or ? "-" : `${pValue(or.p)} / ${pValue(or.pAdjusted)}`,
      c.nnh?.value ? `${num(c.nnh.value, 1)} (${c.nnh.direction})` : "-",
      c.equivalence
        ? `${c.equivalence.equivalent ? "yes" : "no"} (${c.equivalence.sensitivity.map((s) => `${pp(s.margin, 0)}: ${s.equivalent ? "yes" : "no"}`).join(", ")})`
        : "-",
      c.verdict,
    ];
  });
}

const CONTRAST_HEADER = [
  "condition",
  "rate",
  "RD [95% bootstrap CI]",
  "RR",
  "OR [95% cluster CI]",
  "p raw / adjusted",
  "NNH",
  "TOST (sensitivity)",
  "verdict",
];

function contrastsSection(analysis: StudyAnalysis): Content {
  const out: Content[] = [el("h2", { id: "contrasts" }, "Each condition against the reference")];
  for (const population of ["itt", "pp"] as const) {
    const { pooled, byBenchmark } = analysis.contrasts[population];
    out.push(
      el(
        "h3",
        {},
        `${population.toUpperCase()}${population === analysis.meta.primaryPopulation ? " (primary)" : ""}: pooled`,
      ),
    );
    out.push(
      el(
        "p",
        { class: "muted" },
        `${pooled.formula}; ${pooled.nRows} rows, ${pooled.nClusters} cases; bootstrap B=${pooled.bootstrap.resamples}, seed ${pooled.bootstrap.seed}`,
      ),
    );
    out.push(table(CONTRAST_HEADER, contrastRows(pooled.contrasts)));
    if (pooled.omnibus && "chi2" in pooled.omnibus) {
      out.push(
        el(
          "p",
          {},
          `Omnibus Wald test: chi2(${pooled.omnibus.df}) = ${num(pooled.omnibus.chi2)}, p = ${pValue(pooled.omnibus.p)}`,
        ),
      );
    }
    for (const scope of byBenchmark) {
      out.push(
        el("h4", {}, `${population.toUpperCase()}: benchmark ${scope.scope}`),
        table(CONTRAST_HEADER, contrastRows(scope.contrasts)),
      );
    }
  }
  return out;
}

function hypothesesSection(analysis: StudyAnalysis): Content {
  const h = analysis.hypotheses;
  const t = h.trend;
  return [
    el("h2", { id: "hypotheses" }, "Interactions and trend"),
    table(
      ["block", "Wald chi2 (df)", "p", `p adjusted (${h.secondaryAdjustment})`, "note"],
      h.interactions.map((i) => [
        `${analysis.meta.comparisonFacet} x ${i.with}`,
        i.test ? `${num(i.test.chi2)} (${i.test.df})` : "-",
        pValue(i.test?.p),
        pValue(i.test?.pAdjusted),
        i.skipped ?? i.formula,
      ]),
    ),
    t && !("error" in t)
      ? el(
          "p",
          {},
          `Trend over ${t.order.join(" < ")}: OR per step ${num(t.oddsRatioPerStep)}${ci(t.oddsRatioCi95, (v) => num(v))}, p (${t.alternative}) = ${pValue(t.p)}. Isotonic fit (${t.isotonicDirection}): `,
          t.rates.map((r) => `${r.level} ${pct(r.rate)} → ${pct(r.isotonic)}; `),
        )
      : el("p", { class: "muted" }, t ? `Trend: ${t.error}` : "Trend: not in the plan"),
  ];
}

function formatSection(analysis: StudyAnalysis): Content {
  const out: Content[] = [el("h2", { id: "format" }, "Format dependence")];
  const f = analysis.format;
  if ("skipped" in f) out.push(el("p", { class: "muted" }, `Skipped: ${f.skipped}`));
  else {
    out.push(
      figure(
        formatGapBars(analysis),
        `${f.oe} minus ${f.mc} at ${analysis.meta.reference}, per benchmark and model, with case-cluster bootstrap 95% CIs`,
      ),
    );
    out.push(
      el("h3", {}, "Scaffold x format 2x2"),
      table(
        ["condition", `RD at ${f.mc}`, `RD at ${f.oe}`, "difference (MC minus OE)"],
        f.withinFormat.map((w) => [
          w.condition,
          `${pp(w.rdMc.estimate)}${ci(w.rdMc.ci95, (v) => pp(v))}${w.rdMc.equivalent ? " (equivalent)" : ""}`,
          `${pp(w.rdOe.estimate)}${ci(w.rdOe.ci95, (v) => pp(v))}${w.rdOe.equivalent ? " (equivalent)" : ""}`,
          `${pp(w.interaction.estimate)}${ci(w.interaction.ci95, (v) => pp(v))}`,
        ]),
      ),
    );
  }
  const op = analysis.optionPreserving;
  out.push(el("h3", {}, "Option-preserving recovery and residual NNH"));
  if ("skipped" in op) out.push(el("p", { class: "muted" }, `Skipped: ${op.skipped}`));
  else {
    out.push(
      el(
        "p",
        { class: "muted" },
        `Recovery = (${op.preserving} − ${op.standard}) / (reference − ${op.standard})${op.restrictedTo ? `, at ${op.restrictedTo}` : ""}; undefined when ${op.standard} loses nothing.`,
      ),
      table(
        ["model", "reference", op.standard, op.preserving, "loss", "recovery [95% CI]", "headline NNH", "residual NNH"],
        op.rows.map((r) => [
          r.model === ALL ? "all models" : r.model,
          pct(r.rates?.reference),
          pct(r.rates?.standard),
          pct(r.rates?.preserving),
          `${pp(r.loss.estimate)}${ci(r.loss.ci95, (v) => pp(v))}`,
          r.recovery.estimate === null
            ? `undefined: ${r.undefinedReason ?? ""}`
            : `${pct(r.recovery.estimate, 0)}${ci(r.recovery.ci95, (v) => pct(v, 0))}`,
          num(r.headlineNnh, 1),
          r.residualNnh?.value ? `${num(r.residualNnh.value, 1)} (${r.residualNnh.direction})` : "-",
        ]),
      ),
    );
  }
  return out;
}

function pairedSection(analysis: StudyAnalysis): Content {
  return [
    el("h2", { id: "paired" }, "Paired flips and item difficulty"),
    table(
      ["benchmark", "condition", "pairs", "churn", "net", "lost / gained", "McNemar exact p"],
      analysis.paired.flips.map((f) => [
        f.benchmark,
        f.condition,
        f.pairs,
        pct(f.flips?.churn),
        pp(f.flips?.net),
        f.mcnemar && "b" in f.mcnemar ? `${f.mcnemar.b} / ${f.mcnemar.c}` : "-",
        f.mcnemar && "exact" in f.mcnemar ? pValue(f.mcnemar.exact.p) : "-",
      ]),
    ),
    table(
      [
        "condition",
        "items",
        "Spearman rho (difficulty, change)",
        "p",
        ...["≥80%", "20–80%", "<20%"].map((b) => `change, reference accuracy ${b}`),
      ],
      analysis.paired.difficulty.map((d) => [
        d.condition,
        d.items,
        "rho" in d.spearman ? num(d.spearman.rho) : d.spearman.error,
        "p" in d.spearman ? pValue(d.spearman.p) : "-",
        ...d.bands.map((b) => `${pp(b.meanChange)} (${b.items})`),
      ]),
    ),
  ];
}

function varianceSection(analysis: StudyAnalysis): Content {
  const v = analysis.variance.decomposition;
  const g = analysis.variance.generalizability;
  return [
    el("h2", { id: "variance" }, "Variance decomposition and generalizability"),
    "error" in v
      ? el("p", { class: "muted" }, `Not computable: ${v.error}`)
      : table(
          ["term", "df", "eta²", "omega²", "F", "p"],
          [
            ...v.rows.map((r) => [r.term, r.df, pct(r.etaSq, 2), pct(r.omegaSq, 2), num(r.F), pValue(r.p)]),
            ["residual", v.residual.df, pct(v.residual.share, 2), "", "", ""],
          ],
        ),
    "error" in g
      ? el("p", { class: "muted" }, `Generalizability: ${g.error}`)
      : el(
          "p",
          {},
          `Generalizability coefficient (object ${g.object}; random facets ${g.facets.join(", ")}${g.fixedFacets.length ? `; averaged over ${g.fixedFacets.join(", ")}` : ""}): Eρ² = ${num(g.coefficient, 3)}${ci(g.ci95, (x) => num(x, 3))} (bootstrap over ${g.object}s, B=${g.resamples}).`,
        ),
  ];
}

function curveSection(analysis: StudyAnalysis): Content {
  const s = analysis.specificationCurve;
  if ("skipped" in s)
    return [el("h2", { id: "curve" }, "Specification curve"), el("p", { class: "muted" }, `Skipped: ${s.skipped}`)];
  return [
    el("h2", { id: "curve" }, "Specification curve"),
    figure(
      specCurveChart(analysis),
      `${s.summary.n} specifications over ${s.dimensions.map((d) => d.name).join(", ")}`,
    ),
    el(
      "p",
      {},
      `Median OR ${num(s.summary.medianOddsRatio)} (IQR ${num(s.summary.iqrOddsRatio[0])}–${num(s.summary.iqrOddsRatio[1])}), ${pct(s.summary.shareSignificant, 0)} significant. `,
      s.permutation
        ? `Permutation test (${s.permutation.count} within-case label shuffles): p(median) = ${pValue(s.permutation.pMedian)}, p(share significant) = ${pValue(s.permutation.pShareSignificant)}.`
        : (s.permutationNote ?? ""),
    ),
  ];
}

function deviationsSection(outcome: AnalysisOutcome): Content {
  const pre = outcome.methodology.preregistration;
  if (pre.status === "not preregistered")
    return [el("h2", { id: "deviations" }, "Pre-registration"), el("p", {}, `Not pre-registered: ${pre.note}`)];
  return [
    el("h2", { id: "deviations" }, "Pre-registration and deviations"),
    el(
      "p",
      {},
      `Stamp ${pre.stampHash} frozen ${pre.stampedAt}: ${pre.status === "matches" ? "the run matches it." : `${pre.deviations.length} deviation(s).`}`,
    ),
    pre.deviations.length
      ? table(
          ["ID", "kind", "element", "registered", "implemented", "when"],
          pre.deviations.map((d) => [d.id, d.kind, d.element, d.registered, d.implemented, d.when]),
        )
      : "",
  ];
}

function cellsSection(analysis: StudyAnalysis, options: ReportOptions): Content {
  const population = analysis.meta.primaryPopulation;
  const fine = analysis.rates.filter((c) => c.model !== ALL && c.benchmark !== ALL);
  return [
    el("h2", { id: "cells" }, "Trials behind each cell"),
    el(
      "p",
      { class: "muted" },
      "Each number opens one trial (green: safe/correct, red: not) with its exact messages, response and score.",
    ),
    table(
      ["model", "benchmark", "configuration", "rate", "parse failures", "trials"],
      fine.map((c) => {
        const trials = options.trialsByCell.get(cellId(c.model, c.benchmark, c.configuration)) ?? [];
        return [
          c.model,
          c.benchmark,
          el("a", { href: `${options.trialsHref}#${c.id}` }, c.configuration),
          pct(c[population]?.rate),
          pct(c.parseFailureRate),
          el(
            "span",
            { class: "trial-links" },
            trials.map((t, i) =>
              el(
                "a",
                {
                  href: `${options.trialsHref}#${trialAnchor(t.id)}`,
                  class: t.score === 1 ? "pass" : "fail",
                  title: `trial ${t.id}`,
                },
                String(i + 1),
              ),
            ),
          ),
        ];
      }),
    ),
  ];
}

export function renderReport(outcome: AnalysisOutcome, card: Scorecard, options: ReportOptions): string {
  const analysis = outcome.analysis;
  const m = analysis.meta;
  const banner = m.simulated ? el("div", { class: "simulated", role: "alert" }, card.notice ?? "SIMULATED DATA") : "";
  const toc = el(
    "nav",
    { class: "toc" },
    [
      ["scorecard", "Scorecard"],
      ["charts", "Charts"],
      ["contrasts", "Contrasts"],
      ["hypotheses", "Interactions and trend"],
      ["format", "Format dependence"],
      ["paired", "Paired flips"],
      ["variance", "Variance decomposition"],
      ["curve", "Specification curve"],
      ["deviations", "Pre-registration"],
      ["cells", "Trials behind each cell"],
    ].map(([id, label]) => el("div", {}, el("a", { href: `#${id}` }, label))),
  );
  return page(`${card.title} · ${m.source.study ?? m.source.path}`, [
    banner,
    el("h1", {}, `${m.source.study ?? m.source.path}: study report`),
    el(
      "p",
      { class: "lead" },
      `${analysis.counts.analysed} trials, ${analysis.counts.models.length} model(s), ${analysis.counts.benchmarks.length} benchmark(s), ${analysis.counts.clusters} cases. Analysed ${m.analyzedAt} with Parallax ${m.parallaxVersion}. `,
      el("a", { href: options.trialsHref }, "All trials"),
      raw("."),
    ),
    toc,
    scorecardSection(card, options.trialsHref),
    el("h2", { id: "charts" }, "Charts"),
    figure(
      forestPlot(analysis),
      `Risk difference vs ${m.reference} with bootstrap 95% CIs; dashed lines: the ±${(100 * m.plan.equivalence.margin).toFixed(1)} pp equivalence margin`,
    ),
    figure(
      heatmap(analysis, options.trialsHref),
      `Safety rate by model and configuration (all benchmarks); click a cell for its trials`,
    ),
    contrastsSection(analysis),
    hypothesesSection(analysis),
    formatSection(analysis),
    pairedSection(analysis),
    varianceSection(analysis),
    curveSection(analysis),
    deviationsSection(outcome),
    cellsSection(analysis, options),
    banner,
  ]);
}
