/**
 * ScaffoldSafety App. D (Table 22): the 29 pre-registered researcher degrees of freedom, each
 * mapped to what the specification curve does with it on this table: `varied` (a dimension of
 * this curve), `available` (a dimension Parallax can vary here; the plan does not ask for it) or
 * `unsupported`, with the reason the data or the methods cannot support it. Nothing is dropped
 * silently: every row of the table appears in the result.
 */
import type { SpecCurveDimension } from "../../contracts/analysis/comparison.js";

export interface SpecCurvePath {
  /** Row number in App. D, Table 22. */
  id: number;
  category: string;
  path: string;
  status: "varied" | "available" | "unsupported";
  /** The curve dimension that varies it (plan key `specification_curve.dimensions`, or `glmm`). */
  dimension?: string;
  reason?: string;
}

/** What the catalogue needs to know about the table and the curve. */
export interface PathFacts {
  /** Dimensions this curve varies. */
  varied: readonly string[];
  /** Scorers whose outcomes the table holds for these trials. */
  scorers: readonly string[];
  benchmarks: readonly string[];
  /** Facet columns and their level counts (other than the comparison facet). */
  facetLevels: Readonly<Record<string, number>>;
  comparisonFacet: string;
  /** Whether the GLMM refit ran (or why not). */
  glmm: true | string;
}

type Rule = (facts: PathFacts) => Omit<SpecCurvePath, "id" | "category" | "path">;

const dimension =
  (name: SpecCurveDimension, unsupportedWhen?: (f: PathFacts) => string | null): Rule =>
  (facts) => {
    const why = unsupportedWhen?.(facts) ?? null;
    if (why) return { status: "unsupported", dimension: name, reason: why };
    return { status: facts.varied.includes(name) ? "varied" : "available", dimension: name };
  };

const unsupported =
  (reason: string): Rule =>
  () => ({ status: "unsupported", reason });

const oneScorer = (facts: PathFacts) =>
  facts.scorers.length < 2
    ? `the table holds one scorer's outcomes (${facts.scorers.join(", ") || "none"}); store each alternative as its own scorer ('parallax score --scorer NAME', or a 'scorer' column) and vary it with the 'scorer' dimension`
    : null;

/** A scoring variant the curve varies through the `scorer` dimension when each variant is a stored scorer. */
const scorerVariant =
  (what: string): Rule =>
  (facts) => {
    const why = oneScorer(facts);
    if (why) return { status: "unsupported", dimension: "scorer", reason: `${what}: ${why}` };
    return {
      status: facts.varied.includes("scorer") ? "varied" : "available",
      dimension: "scorer",
      reason: `${what}: through the stored scorers ${facts.scorers.join(", ")}`,
    };
  };

const facetPath =
  (facet: string, what: string): Rule =>
  (facts) => {
    const levels = facts.facetLevels[facet] ?? 0;
    if (facet === facts.comparisonFacet || levels < 2) {
      return {
        status: "unsupported",
        reason: `${what} is a property of the trials, not an analytic choice on the same data: it needs trials run at each setting (a facet '${facet}' with two or more levels, other than the compared facet)`,
      };
    }
    return {
      status: facts.varied.includes(`facet:${facet}`) ? "varied" : "available",
      dimension: `facet_subsets: ${facet}`,
    };
  };

const CONFIG_SETTING =
  "a scaffold setting is part of the compared condition: each setting is its own trials (its own level of the compared facet), so it is compared directly, not varied as an analysis choice on the same rows";

const SANITISATION =
  "sanitisation acts on what the judge reads, so each variant needs the open-ended answers judged again under it";

const PATHS: { id: number; category: string; path: string; rule: Rule }[] = [
  { id: 1, category: "Scoring", path: "Judge model", rule: scorerVariant("one judge per stored scorer") },
  {
    id: 2,
    category: "Scoring",
    path: "Scoring threshold (binary vs. 3-category)",
    rule: scorerVariant("each threshold as a stored scorer"),
  },
  {
    id: 3,
    category: "Scoring",
    path: "Partial-compliance handling (safe / unsafe / exclude)",
    rule: scorerVariant("each handling as a stored scorer"),
  },
  {
    id: 4,
    category: "Scoring",
    path: "Confidence weighting",
    rule: unsupported(
      "the analysis table records a 0/1 outcome per trial and scorer, not the judge's confidence, so outcomes cannot be weighted by it",
    ),
  },
  {
    id: 5,
    category: "Scoring",
    path: "Rubric variant (strict vs. lenient)",
    rule: scorerVariant("each rubric as a stored scorer"),
  },
  {
    id: 6,
    category: "Scoring",
    path: "Response truncation length (1K, 2K, 5K, 10K tokens)",
    rule: unsupported(
      "the analysis table carries no response text or length, so answers cannot be re-truncated and re-scored from it; rescoring truncated responses would be a stored scorer per length",
    ),
  },
  {
    id: 7,
    category: "Stats model",
    path: "Random effects (intercept only vs. maximal)",
    rule: (facts) =>
      facts.glmm === true
        ? {
            status: "varied",
            dimension: "glmm",
            reason:
              "the case random-intercept GLMM is fitted for the primary specification (Q.3.5's representative subset); a maximal structure (random slopes) is not implemented",
          }
        : {
            status: "unsupported",
            dimension: "glmm",
            reason: `GLMM refit not run: ${facts.glmm}; random slopes (maximal) are not implemented`,
          },
  },
  { id: 8, category: "Stats model", path: "Link function (logit vs. probit)", rule: dimension("link") },
  {
    id: 9,
    category: "Stats model",
    path: "Optimizer (Laplace vs. adaptive Gauss-Hermite)",
    rule: unsupported(
      "the GLMM uses the Laplace approximation only; adaptive Gauss-Hermite quadrature is not implemented",
    ),
  },
  {
    id: 10,
    category: "Stats model",
    path: "Three-way interaction (include / exclude)",
    rule: unsupported(
      "with configuration x model x benchmark terms the configuration coefficient is the effect at the reference model and benchmark, a different estimand from the curve's adjusted main effect, so the two are not points on one curve",
    ),
  },
  {
    id: 11,
    category: "Stats model",
    path: "Models as fixed vs. random effects",
    rule: unsupported(
      "the GLMM fits one random intercept, used for the case; models as random effects would need a second, crossed random intercept (fixed model effects are the 'adjustment' dimension)",
    ),
  },
  {
    id: 12,
    category: "Stats model",
    path: "Overdispersion correction",
    rule: unsupported(
      "not a distinct specification: a 0/1 outcome has its dispersion fixed at 1, and a quasi-binomial scale cancels in the cluster-robust sandwich, so the estimate and its SE would not change",
    ),
  },
  { id: 13, category: "Stats model", path: "Firth penalized likelihood", rule: dimension("firth") },
  {
    id: 14,
    category: "Data",
    path: "Minimum response length (0, 10, 50 chars)",
    rule: unsupported("the analysis table carries no response length, so responses cannot be filtered by it"),
  },
  {
    id: 15,
    category: "Data",
    path: "API error handling (exclude vs. code as unsafe)",
    rule: dimension("errored"),
  },
  {
    id: 16,
    category: "Data",
    path: "Refusal-to-respond (exclude vs. code as unsafe)",
    rule: unsupported(
      "the analysis table has no refusal flag apart from the outcome; a refusal classifier stored as its own scorer would make it a 'scorer' variant",
    ),
  },
  {
    id: 17,
    category: "Data",
    path: "Benchmark subset",
    rule: dimension("benchmark_subset", (f) => (f.benchmarks.length < 2 ? "the table holds a single benchmark" : null)),
  },
  {
    id: 18,
    category: "Data",
    path: "BBQ context split (ambiguous only vs. both)",
    rule: unsupported("the analysis table does not carry an item's context condition (ambiguous / disambiguated)"),
  },
  {
    id: 19,
    category: "Data",
    path: "AI factual recall topic subset (all vs. politics only)",
    rule: unsupported("the analysis table does not carry an item's topic"),
  },
  {
    id: 20,
    category: "Sanitization",
    path: "CoT stripping (aggressive vs. minimal)",
    rule: scorerVariant(SANITISATION),
  },
  { id: 21, category: "Sanitization", path: "Self-ID redaction", rule: scorerVariant(SANITISATION) },
  {
    id: 22,
    category: "Sanitization",
    path: "Format normalization (full vs. whitespace only)",
    rule: scorerVariant(SANITISATION),
  },
  { id: 23, category: "Sanitization", path: "Response-length equalization", rule: scorerVariant(SANITISATION) },
  { id: 24, category: "Sanitization", path: "Raw vs. sanitized responses", rule: scorerVariant(SANITISATION) },
  { id: 25, category: "Config", path: "ReAct max iterations (3 vs. 5 vs. 10)", rule: unsupported(CONFIG_SETTING) },
  { id: 26, category: "Config", path: "Critic revision rounds (1 vs. 2)", rule: unsupported(CONFIG_SETTING) },
  { id: 27, category: "Config", path: "Map-reduce chunks (2 vs. 3 vs. 5)", rule: unsupported(CONFIG_SETTING) },
  {
    id: 28,
    category: "Config",
    path: "System prompt variant (strict vs. soft)",
    rule: facetPath("system_prompt", "the system prompt"),
  },
  { id: 29, category: "Config", path: "Temperature", rule: facetPath("temperature", "the sampling temperature") },
];

/** Every App. D path with its status on this table. */
export function appendixDPaths(facts: PathFacts): SpecCurvePath[] {
  return PATHS.map(({ id, category, path, rule }) => ({ id, category, path, ...rule(facts) }));
}

/** The population (ITT vs PP) is the primary curve's "scoring method"; it is not one of App. D's rows. */
export const SCORING_METHOD_NOTE =
  "the primary curve's 'scoring method' is the population: ITT (a parse failure scores 0) vs. per-protocol (parse failures left out)";
