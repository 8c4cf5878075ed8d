/** Variance decomposition (Type II ANOVA, eta^2, omega^2) and the G-study (ScaffoldSafety App. O). */
import { AnalysisPlanSchema } from "../../contracts/analysis.js";
import { type AnalysisContext, registerAnalysis, type StudyAnalysis } from "../core/registry.js";
import type { VarianceComponent } from "../../stats/index.js";
import { defineTable, renderText } from "../core/result-table.js";
import { bracket, num, pct, pValue } from "../core/text.js";
import {
  type Generalizability,
  generalizability,
  type VarianceDecomposition,
  varianceDecomposition,
} from "./variance.js";
import { pooledFormatsNote } from "./format-pooling.js";

declare module "../core/registry.js" {
  interface AnalysisResults {
    variance: {
      decomposition: VarianceDecomposition | { error: string };
      generalizability: Generalizability | { error: string };
    };
  }
}

function variance(ctx: AnalysisContext) {
  const { comparisonFacet: facet } = ctx.resolved;
  const otherFacets = ctx.setup.covariateFacets;
  return {
    decomposition: varianceDecomposition(ctx.main, facet, otherFacets),
    generalizability: generalizability(ctx.main, facet, otherFacets, ctx.plan),
  };
}

/** A term of the decomposition, or the residual (no omega^2, F or p). */
export interface DecompositionRow {
  term: string;
  df: number;
  /** A term's eta^2, the residual's share. */
  share: number;
  omegaSq: number | null;
  F: number | null;
  p: number | null;
}

/** The decomposition's terms, then the residual. */
export function decompositionRows(v: VarianceDecomposition): DecompositionRow[] {
  return [
    ...v.rows.map((r) => ({ term: r.term, df: r.df, share: r.etaSq, omegaSq: r.omegaSq, F: r.F, p: r.p })),
    { term: "residual", df: v.residual.df, share: v.residual.share, omegaSq: null, F: null, p: null },
  ];
}

/** A residual's blank, else the text. */
function unlessResidual(value: number | null, text: (v: number) => string): string {
  return value === null ? "" : text(value);
}

/** The Type II ANOVA decomposition (the --full summary and the report, which adds F). */
export const DECOMPOSITION_TABLE = defineTable<DecompositionRow>({
  name: "variance decomposition",
  columns: [
    { key: "term", header: "term", cell: (r) => r.term },
    { key: "df", header: "df", align: "right", cell: (r) => String(r.df) },
    // The terminal spells the squares out; the report writes them.
    { key: "eta", header: { text: "eta^2", html: "eta²" }, unit: "%", align: "right", cell: (r) => pct(r.share, 2) },
    {
      key: "omega",
      header: { text: "omega^2", html: "omega²" },
      unit: "%",
      align: "right",
      cell: (r) => unlessResidual(r.omegaSq, (v) => pct(v, 2)),
    },
    { key: "F", header: "F", align: "right", shownIn: ["html"], cell: (r) => unlessResidual(r.F, (v) => num(v)) },
    { key: "p", header: "p", align: "right", cell: (r) => unlessResidual(r.p, (v) => pValue(v)) },
  ],
});

/** The G-study's variance components (the report). */
export const G_COMPONENTS_TABLE = defineTable<VarianceComponent>({
  name: "G-study variance components",
  columns: [
    { key: "source", header: "source", cell: (c) => c.source },
    { key: "df", header: "df", align: "right", cell: (c) => String(c.df) },
    { key: "meanSquare", header: "mean square", align: "right", cell: (c) => num(c.meanSquare, 5) },
    { key: "estimate", header: "estimate", align: "right", cell: (c) => num(c.estimate, 5) },
    { key: "truncated", header: "truncated", align: "right", cell: (c) => num(c.truncated, 5) },
  ],
});

/** One design of the G- and D-study: its facet sizes, coefficients and the bootstrap interval of E rho^2. */
export interface GDesignRow {
  design: string;
  sizes: number[];
  generalizability: number;
  dependability: number;
  ci95: [number, number] | null;
}

/** The declared and every-facet-random designs at the observed sizes, then the D-study's. */
export function gDesignRows(g: Generalizability): GDesignRow[] {
  return [
    {
      design: `declared (${g.facets.map((f) => g.facetTypes[f]).join(" × ")})`,
      sizes: g.facetSizes,
      generalizability: g.coefficient,
      dependability: g.dependability,
      ci95: g.ci95,
    },
    {
      design: "every facet random",
      sizes: g.facetSizes,
      generalizability: g.allRandom.coefficient,
      dependability: g.allRandom.dependability,
      ci95: g.allRandom.ci95,
    },
    {
      design: "D-study, every facet random",
      sizes: g.dStudy.sizes,
      generalizability: g.dStudy.allRandom.generalizability,
      dependability: g.dStudy.allRandom.dependability,
      ci95: null,
    },
    {
      design: "D-study, declared types",
      sizes: g.dStudy.sizes,
      generalizability: g.dStudy.declared.generalizability,
      dependability: g.dStudy.declared.dependability,
      ci95: null,
    },
  ];
}

/** The G- and D-study coefficients per design (the report; the terminal says them in lines). */
export const G_DESIGNS_TABLE = defineTable<GDesignRow>({
  name: "generalizability by design",
  columns: [
    { key: "design", header: "design", cell: (d) => d.design },
    { key: "sizes", header: "sizes", cell: (d) => d.sizes.join(" × ") },
    { key: "generalizability", header: "Eρ²", align: "right", cell: (d) => num(d.generalizability, 3) },
    { key: "dependability", header: "Φ", align: "right", cell: (d) => num(d.dependability, 3) },
    {
      key: "ci95",
      header: "bootstrap 95% CI of Eρ²",
      // The report's interval cell keeps the leading space of its interval helper (bytes unchanged).
      cell: (d) => (d.ci95 ? ` ${bracket(d.ci95, (x) => num(x, 3))}` : "-"),
    },
  ],
});

function summaryLines(analysis: StudyAnalysis): string[] {
  const out: string[] = [];
  const v = analysis.variance.decomposition;
  if ("error" in v) out.push(`variance decomposition: not computable (${v.error})`);
  else {
    out.push("variance decomposition (Type II ANOVA on the 0/1 outcome)");
    out.push(...renderText(DECOMPOSITION_TABLE, decompositionRows(v)));
    if (v.aliased?.length) out.push(`  ${aliasedLine(v.aliased)}`);
  }
  const g = analysis.variance.generalizability;
  if ("error" in g) out.push(`generalizability: not computable (${g.error})`);
  else {
    const types = g.facets.map((f) => `${f} ${g.facetTypes[f]}`).join(", ");
    out.push(
      `generalizability (object ${g.object}, n=${g.nObjects}; facets ${types}${g.fixedFacets.length ? `; averaged over ${g.fixedFacets.join(", ")}` : ""}): E rho^2 = ${num(g.coefficient, 3)} ${bracket(g.ci95, (x) => num(x, 3))}, Phi = ${num(g.dependability, 3)}`,
      `  every facet random: E rho^2 = ${num(g.allRandom.coefficient, 3)} ${bracket(g.allRandom.ci95, (x) => num(x, 3))}, Phi = ${num(g.allRandom.dependability, 3)}`,
      `  D-study at ${g.dStudy.sizes.join(" x ")} (${g.facets.join(" x ")}): every facet random E rho^2 = ${num(g.dStudy.allRandom.generalizability, 3)}, Phi = ${num(g.dStudy.allRandom.dependability, 3)}; declared types E rho^2 = ${num(g.dStudy.declared.generalizability, 3)}`,
      `  components: ${g.components.map((c) => `${c.source} ${num(c.estimate, 5)}`).join(", ")}`,
      ...g.notes.map((n) => `  note: ${n}`),
    );
  }
  return [...out, ""];
}

/** The dropped columns, named up to a terminal line's worth (analysis.json lists them all). */
function aliasedLine(aliased: readonly string[]): string {
  const shown: string[] = [];
  let width = 0;
  for (const name of aliased) {
    if (shown.length > 0 && width + name.length > 90) break;
    shown.push(name);
    width += name.length + 2;
  }
  const more = aliased.length - shown.length;
  return `aliased columns left out, as R's lm does (levels the grid does not cross): ${shown.join(", ")}${more ? ` and ${more} more` : ""}`;
}

registerAnalysis({
  name: "variance",
  pooledFormats: pooledFormatsNote,
  kinds: ["comparison", "grid"],
  plan: AnalysisPlanSchema.pick({ generalizability: true, population: true, bootstrap: true }),
  result: "variance",
  run: variance,
  summary: ({ analysis }) => summaryLines(analysis),
});
