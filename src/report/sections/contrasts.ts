/** Each condition against the reference, per population, pooled and per benchmark. */
import { type Contrast, num, pct, pp, pValue } from "../../analysis/index.js";
import { ci } from "../blocks.js";
import { type Content, el, table } from "../html.js";
import { type ReportContext, registerReportSection } from "./registry.js";

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
      c.notInterpretable
        ? "not interpretable"
        : c.equivalence
          ? `${c.equivalence.equivalent ? "yes" : "no"} (${c.equivalence.sensitivity.map((s) => `${pp(s.margin, 0)}: ${s.equivalent ? "yes" : "no"}`).join(", ")})`
          : "-",
      c.verdict,
    ];
  });
}

function contrasts({ analysis }: ReportContext): Content {
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

registerReportSection({ name: "contrasts", toc: { id: "contrasts", label: "Contrasts" }, render: contrasts });
