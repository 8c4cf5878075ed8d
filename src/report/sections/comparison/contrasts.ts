/** Each condition against the reference, per population, pooled and per benchmark. */
import {
  type Contrast,
  type ContrastScope,
  contrastGroups,
  NUMBER_NEEDED_HEADING,
  num,
  numberNeededText,
  pct,
  pp,
  pEquals,
  pValue,
  scopeLabel,
  shownNumberNeeded,
  shownRdInterval,
} from "../../../analysis/index.js";
import { ci } from "../../blocks.js";
import { type Content, el, table } from "../../html.js";
import { type ReportContext, registerReportSection } from "../registry.js";

const CONTRAST_HEADER = [
  "condition",
  "rate",
  "RD [95% bootstrap CI]",
  "RR",
  "OR [95% cluster CI]",
  "p raw / adjusted",
  NUMBER_NEEDED_HEADING,
  "TOST (sensitivity)",
  "verdict",
];

function contrastRows(contrasts: Contrast[]): Content[][] {
  return contrasts.map((c) => {
    const or = c.oddsRatio;
    return [
      c.condition,
      `${pct(c.rate?.rate)} (n=${c.rate?.n ?? 0})`,
      `${pp(c.riskDifference?.estimate)}${ci(shownRdInterval(c), (v) => pp(v))}`,
      c.riskRatio?.estimate && !c.withheld ? `${num(c.riskRatio.estimate)}${ci(c.riskRatio.ci95, (v) => num(v))}` : "-",
      "error" in or ? `n/a: ${or.error}` : c.withheld ? "-" : `${num(or.estimate)}${ci(or.ci95, (v) => num(v))}`,
      "error" in or || c.withheld ? "-" : `${pValue(or.p)} / ${pValue(or.pAdjusted)}`,
      numberNeededText(shownNumberNeeded(c)),
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
    const pc = analysis.contrasts[population];
    const primary = population === analysis.meta.primaryPopulation ? " (primary)" : "";
    const P = population.toUpperCase();
    if (pc.byFormat?.length) {
      out.push(
        el(
          "p",
          { class: "muted" },
          "Format is a facet: every risk difference, NNT/NNH and TOST verdict of this section is within one format, never pooled across formats (the omnibus test alone takes every format, with format as a fixed effect). Sections that pool formats say so under their heading.",
        ),
      );
      if (pc.pooled.omnibus && "chi2" in pc.pooled.omnibus) {
        out.push(
          el(
            "p",
            {},
            `${P}${primary}: omnibus Wald test over every format (${pc.pooled.formula}): chi2(${pc.pooled.omnibus.df}) = ${num(pc.pooled.omnibus.chi2)}, ${omnibusReading(pc.pooled, pc.pooled.omnibus.p)}`,
          ),
        );
      }
    }
    for (const group of contrastGroups(pc)) {
      const { pooled } = group;
      const at = group.format ? `, format ${group.format}` : "";
      out.push(el("h3", {}, `${P}${primary}: pooled${at}`));
      out.push(
        el(
          "p",
          { class: "muted" },
          `${pooled.formula}; ${pooled.nRows} rows, ${pooled.nClusters} cases; bootstrap B=${pooled.bootstrap.resamples}, seed ${pooled.bootstrap.seed}`,
        ),
      );
      out.push(table(CONTRAST_HEADER, contrastRows(pooled.contrasts)));
      if (!pc.byFormat?.length && pooled.omnibus && "chi2" in pooled.omnibus) {
        out.push(
          el(
            "p",
            {},
            `Omnibus Wald test: chi2(${pooled.omnibus.df}) = ${num(pooled.omnibus.chi2)}, ${omnibusReading(pooled, pooled.omnibus.p)}`,
          ),
        );
      }
      for (const scope of [...group.byBenchmark, ...group.byModel]) {
        out.push(
          el("h4", {}, `${P}: ${scope.kind === "model" ? "" : "benchmark "}${scopeLabel(scope)}`),
          table(CONTRAST_HEADER, contrastRows(scope.contrasts)),
        );
      }
    }
  }
  return out;
}

registerReportSection({ name: "contrasts", toc: { id: "contrasts", label: "Contrasts" }, render: contrasts });

/** The omnibus p value, or why the integrity gate left the test unread (too few clusters). */
function omnibusReading(scope: ContrastScope, p: number): string {
  return scope.omnibusNotInterpretable ? `not interpretable: ${scope.omnibusNotInterpretable}` : `${pEquals(p)}`;
}
