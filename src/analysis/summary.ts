/** The readable summary `parallax analyze` prints (the JSON result holds everything). */
import type { Contrast, ContrastScope } from "./contrasts.js";
import type { Methodology } from "./directory.js";
import { ALL } from "./rates.js";
import { num, pct, pp, SIMULATED_NOTICE } from "./scorecard.js";
import type { StudyAnalysis } from "./study.js";

function p(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  return value < 0.001 ? value.toExponential(1) : value.toFixed(3);
}

function ci(interval: [number, number] | null | undefined, f: (v: number) => string): string {
  return interval ? `[${f(interval[0])}, ${f(interval[1])}]` : "";
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (c ?? "").padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
}

function contrastRow(c: Contrast): string[] {
  const or = c.oddsRatio;
  return [
    c.condition,
    pct(c.rate?.rate),
    `${pp(c.riskDifference?.estimate)} ${ci(c.riskDifference?.ci95, (v) => pp(v))}`,
    "error" in or ? "n/a" : `${num(or.estimate)} ${ci(or.ci95, (v) => num(v))}`,
    "error" in or ? "-" : `${p(or.p)} / ${p(or.pAdjusted)}`,
    c.nnh?.value ? `${num(c.nnh.value, 1)} (${c.nnh.direction})` : "-",
    c.equivalence ? (c.equivalence.equivalent ? "yes" : "no") : "-",
    c.verdict,
  ];
}

function scopeLines(scope: ContrastScope, title: string): string[] {
  const ref = scope.contrasts[0]?.referenceRate;
  const lines = [
    `${title} (${scope.population.toUpperCase()}; n=${scope.nRows}, ${scope.nClusters} cases; reference rate ${pct(ref?.rate)})`,
  ];
  lines.push(
    ...table(
      ["condition", "rate", "RD [95% bootstrap CI]", "OR [95% cluster CI]", "p raw / adj", "NNH", "TOST", "verdict"],
      scope.contrasts.map(contrastRow),
    ),
  );
  if (scope.omnibus && "chi2" in scope.omnibus) {
    lines.push(`omnibus Wald: chi2(${scope.omnibus.df}) = ${num(scope.omnibus.chi2)}, p = ${p(scope.omnibus.p)}`);
  }
  return [...lines, ""];
}

export function formatSummary(analysis: StudyAnalysis, methodology: Methodology): string {
  const m = analysis.meta;
  const out: string[] = [];
  if (m.simulated) out.push(`*** ${SIMULATED_NOTICE} ***`, "");
  const c = analysis.counts;
  out.push(
    `analysis of ${m.source.study ?? m.source.path}${m.source.runId ? ` (run ${m.source.runId})` : ""}${
      m.source.scorer ? `; outcomes from scorer ${m.source.scorer}` : ""
    }`,
    `rows ${c.analysed} analysed | ${c.clusters} cases | ${c.models.length} model(s) | ${c.benchmarks.length} benchmark(s) | errored ${c.errored} | parse failures ${c.parseFailures} | unscored ${c.unscored} | pending ${c.pending}`,
    `comparison: ${m.comparisonFacet} vs ${m.reference}${
      Object.keys(m.restrict).length
        ? ` at ${Object.entries(m.restrict)
            .map(([f, v]) => `${f}=${v}`)
            .join(", ")}`
        : ""
    }; primary population ${m.primaryPopulation.toUpperCase()}; TOST margin ${pp(m.plan.equivalence.margin)}`,
    ...m.notes.map((n) => `note: ${n}`),
    "",
  );
  out.push("rates by configuration (all models, all benchmarks)");
  const pooledCells = analysis.rates.filter((r) => r.model === ALL && r.benchmark === ALL);
  out.push(
    ...table(
      ["configuration", "n", "ITT [95% Wilson]", "PP", "parse failures"],
      pooledCells.map((r) => [
        r.configuration,
        String(r.n),
        `${pct(r.itt?.rate)} ${ci(r.itt?.ci95, (v) => pct(v))}`,
        pct(r.pp?.rate),
        pct(r.parseFailureRate),
      ]),
    ),
    "",
  );
  const primary = analysis.contrasts[m.primaryPopulation];
  const other = m.primaryPopulation === "itt" ? "pp" : "itt";
  out.push(...scopeLines(primary.pooled, "each condition vs the reference, pooled"));
  out.push(...scopeLines(analysis.contrasts[other].pooled, "the same, other population"));
  for (const scope of primary.byBenchmark) out.push(...scopeLines(scope, `benchmark ${scope.scope}`));
  out.push(
    ...hypothesisLines(analysis),
    ...formatLines(analysis),
    ...pairedLines(analysis),
    ...varianceLines(analysis),
  );
  out.push(...curveLines(analysis), ...methodologyLines(methodology));
  if (m.simulated) out.push("", `*** ${SIMULATED_NOTICE} ***`);
  return `${out.join("\n")}\n`;
}

function hypothesisLines(analysis: StudyAnalysis): string[] {
  const h = analysis.hypotheses;
  const out = [`secondary hypotheses (${h.secondaryAdjustment})`];
  for (const i of h.interactions) {
    out.push(
      i.test
        ? `  ${analysis.meta.comparisonFacet} x ${i.with}: Wald chi2(${i.test.df}) = ${num(i.test.chi2)}, p = ${p(i.test.p)}, adjusted ${p(i.test.pAdjusted)}`
        : `  ${analysis.meta.comparisonFacet} x ${i.with}: skipped (${i.skipped})`,
    );
  }
  const t = h.trend;
  if (t && "error" in t) out.push(`  trend: not estimable (${t.error})`);
  else if (t) {
    out.push(
      `  trend over ${t.order.join(" < ")}: OR per step ${num(t.oddsRatioPerStep)} ${ci(t.oddsRatioCi95, (v) => num(v))}, p (${t.alternative}) = ${p(t.p)}, adjusted ${p(t.pAdjusted)}`,
      `  isotonic fit (${t.isotonicDirection}): ${t.rates.map((r) => `${r.level} ${pct(r.rate)} -> ${pct(r.isotonic)}`).join(", ")}`,
    );
  }
  return [...out, ""];
}

function formatLines(analysis: StudyAnalysis): string[] {
  const out: string[] = [];
  const f = analysis.format;
  if ("skipped" in f) out.push(`format analysis: skipped (${f.skipped})`);
  else {
    out.push(`format: ${f.oe} minus ${f.mc} at ${analysis.meta.reference} (positive: MC understates)`);
    out.push(
      ...table(
        ["benchmark", "model", f.mc, f.oe, "gap [95% CI]"],
        f.gaps.map((g) => [
          g.benchmark,
          g.model,
          pct(g.mc?.rate),
          pct(g.oe?.rate),
          `${pp(g.gap.estimate)} ${ci(g.gap.ci95, (v) => pp(v))}`,
        ]),
      ),
      "",
      `scaffold x format 2x2 (within-format contrasts vs ${analysis.meta.reference})`,
      ...table(
        ["condition", `RD at ${f.mc}`, `RD at ${f.oe}`, "difference (MC - OE)"],
        f.withinFormat.map((w) => [
          w.condition,
          `${pp(w.rdMc.estimate)} ${ci(w.rdMc.ci95, (v) => pp(v))}${w.rdMc.equivalent ? " equiv." : ""}`,
          `${pp(w.rdOe.estimate)} ${ci(w.rdOe.ci95, (v) => pp(v))}${w.rdOe.equivalent ? " equiv." : ""}`,
          `${pp(w.interaction.estimate)} ${ci(w.interaction.ci95, (v) => pp(v))}`,
        ]),
      ),
    );
  }
  const op = analysis.optionPreserving;
  out.push("");
  if ("skipped" in op) out.push(`option-preserving recovery: skipped (${op.skipped})`);
  else {
    out.push(
      `option-preserving recovery: ${op.preserving} vs ${op.standard}${op.restrictedTo ? ` at ${op.restrictedTo}` : ""}`,
    );
    out.push(
      ...table(
        ["model", "reference", op.standard, op.preserving, "loss", "recovery [95% CI]", "headline NNH", "residual NNH"],
        op.rows.map((r) => [
          r.model,
          pct(r.rates?.reference),
          pct(r.rates?.standard),
          pct(r.rates?.preserving),
          pp(r.loss.estimate),
          r.recovery.estimate === null
            ? `undefined (${r.undefinedReason ?? "no estimate"})`
            : `${pct(r.recovery.estimate, 0)} ${ci(r.recovery.ci95, (v) => pct(v, 0))}`,
          num(r.headlineNnh, 1),
          r.residualNnh?.value ? `${num(r.residualNnh.value, 1)} (${r.residualNnh.direction})` : "-",
        ]),
      ),
    );
  }
  return [...out, ""];
}

function pairedLines(analysis: StudyAnalysis): string[] {
  const out = [`paired flips vs ${analysis.meta.reference} (McNemar exact)`];
  out.push(
    ...table(
      ["benchmark", "condition", "pairs", "churn", "net", "lost/gained", "p"],
      analysis.paired.flips.map((f) => [
        f.benchmark,
        f.condition,
        String(f.pairs),
        pct(f.flips?.churn),
        pp(f.flips?.net),
        f.mcnemar && "b" in f.mcnemar ? `${f.mcnemar.b}/${f.mcnemar.c}` : "-",
        f.mcnemar && "exact" in f.mcnemar ? p(f.mcnemar.exact.p) : "-",
      ]),
    ),
    "",
    "degradation by item difficulty (difficulty = the reference's item error rate)",
  );
  for (const d of analysis.paired.difficulty) {
    const s =
      "rho" in d.spearman
        ? `Spearman rho ${num(d.spearman.rho)} (p ${p(d.spearman.p)}, ${d.items} items)`
        : d.spearman.error;
    out.push(`  ${d.condition}: ${s}; ${d.bands.map((b) => `${b.band}: ${pp(b.meanChange)} (${b.items})`).join("; ")}`);
  }
  return [...out, ""];
}

function varianceLines(analysis: StudyAnalysis): string[] {
  const out: string[] = [];
  const v = analysis.variance.decomposition;
  if ("error" in v) out.push(`variance decomposition: not computable (${v.error})`);
  else {
    out.push("variance decomposition (Type II ANOVA on the 0/1 outcome)");
    out.push(
      ...table(
        ["term", "df", "eta^2", "omega^2", "p"],
        [
          ...v.rows.map((r) => [r.term, String(r.df), pct(r.etaSq, 2), pct(r.omegaSq, 2), p(r.p)]),
          ["residual", String(v.residual.df), pct(v.residual.share, 2), "", ""],
        ],
      ),
    );
  }
  const g = analysis.variance.generalizability;
  out.push(
    "error" in g
      ? `generalizability: not computable (${g.error})`
      : `generalizability (object ${g.object}; facets ${g.facets.join(", ")}${g.fixedFacets.length ? `; averaged over ${g.fixedFacets.join(", ")}` : ""}): E rho^2 = ${num(g.coefficient, 3)} ${ci(g.ci95, (x) => num(x, 3))}`,
  );
  return [...out, ""];
}

function curveLines(analysis: StudyAnalysis): string[] {
  const s = analysis.specificationCurve;
  if ("skipped" in s) return [`specification curve: skipped (${s.skipped})`, ""];
  const perm = s.permutation
    ? `; permutation p (median) = ${p(s.permutation.pMedian)}, (share significant) = ${p(s.permutation.pShareSignificant)} over ${s.permutation.count}`
    : s.permutationNote
      ? `; ${s.permutationNote}`
      : "";
  return [
    `specification curve for ${s.contrast} vs ${s.reference}: ${s.summary.n} specifications over ${s.dimensions.map((d) => d.name).join(", ")}`,
    `  median OR ${num(s.summary.medianOddsRatio)} (IQR ${num(s.summary.iqrOddsRatio[0])} to ${num(s.summary.iqrOddsRatio[1])}), ${pct(s.summary.shareSignificant, 0)} significant${perm}`,
    ...(s.failed.length ? [`  ${s.failed.length} specification(s) not estimable`] : []),
    "",
  ];
}

function methodologyLines(methodology: Methodology): string[] {
  const pre = methodology.preregistration;
  const out = ["methodology"];
  if (pre.status === "not preregistered") out.push(`  pre-registration: none (${pre.note})`);
  else {
    out.push(
      `  pre-registration: ${pre.status === "matches" ? "the run matches its stamp" : `${pre.deviations.length} deviation(s) from the stamp`} (stamp ${pre.stampHash.slice(0, 16)}, ${pre.stampedAt})`,
    );
    for (const d of pre.deviations) {
      out.push(
        `    ${d.id} [${d.kind}] ${d.element}: registered ${d.registered}; implemented ${d.implemented} (${d.when})`,
      );
    }
  }
  out.push(
    `  blinding: ${methodology.blinding.note}${methodology.blinding.blindingIndex !== null ? `, BI ${num(methodology.blinding.blindingIndex, 3)}` : ""}`,
  );
  out.push(
    `  judge agreement: ${methodology.judgeAgreement.note}${methodology.judgeAgreement.kappa !== null ? `, kappa ${num(methodology.judgeAgreement.kappa, 3)}` : ""}`,
  );
  return out;
}
